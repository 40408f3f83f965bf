package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.transport.wire.BoardChunk;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A board post arriving in chunks (the coordinator's relay and each participant assemble posts
 * alike): the buffer grows with what arrives, and a post sent whole is assembled exactly.
 */
class BoardAssemblyTest {
  /**
   * Security review turn 3, T3-11: a post the schedule says is 256 MiB long, of which the sender
   * (or the relay) sends one 1 MiB chunk and stops, used to make the reader allocate all 256 MiB on
   * that first chunk; now the reader holds about what came (measured as this thread's allocation,
   * which before the fix was over 256 MiB).
   */
  @Test
  void aLongAnnouncedPostThatStopsAfterOneChunkCostsTheReaderAboutOneChunk() {
    long announced = 256L << 20;
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    BoardChunk first = BoardChunk.newBuilder().setStep(1).setSender(0).setTotalBytes(announced).setOffset(0)
        .setData(ByteString.copyFrom(new byte[Board.CHUNK_BYTES])).build();
    long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    Board.Assembly a = new Board.Assembly(1, 0, announced);
    String wrong = a.add(first);
    long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    assertNull(wrong);
    assertTrue(allocated < 8L << 20, "bytes allocated for a post whose first 1 MiB arrived: " + allocated);
    assertTrue(!a.complete());
  }

  /** A post of several chunks (not a multiple of the chunk size) and an empty one come out exactly, signed. */
  @Test
  void aPostSentWholeIsAssembledExactly() {
    for (int length : new int[] {3 * Board.CHUNK_BYTES + 12345, 0, 32}) {
      byte[] post = new byte[length];
      new SplittableRandom(length).nextBytes(post);
      byte[] signature = new byte[64];
      signature[0] = 1;
      List<BoardChunk> chunks = Board.chunks(2, 1, post, signature);
      Board.Assembly a = new Board.Assembly(2, 1, length);
      for (BoardChunk ch : chunks) {
        assertNull(a.add(ch));
      }
      assertTrue(a.complete());
      assertArrayEquals(post, a.post());
      assertArrayEquals(signature, a.signature());
    }
  }
}
