package dev.helmet.transport;

import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.ShareChunk;
import dev.helmet.transport.wire.UploadAck;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** One upload of one chunk to a compute node, as the node tests send it. */
final class NodeUploads {
  private NodeUploads() {}

  /** Uploads {@code chunk} as one stream and returns the status the node ended it with. */
  static Status upload(ComputeNodeGrpc.ComputeNodeStub stub, ShareChunk chunk) throws Exception {
    CompletableFuture<UploadAck> done = new CompletableFuture<>();
    StreamObserver<ShareChunk> out = stub.withDeadlineAfter(30, TimeUnit.SECONDS).upload(new StreamObserver<>() {
      @Override
      public void onNext(UploadAck ack) {
        done.complete(ack);
      }

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        done.complete(UploadAck.getDefaultInstance());
      }
    });
    out.onNext(chunk);
    out.onCompleted();
    try {
      done.get(60, TimeUnit.SECONDS);
      return Status.OK;
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    }
  }
}
