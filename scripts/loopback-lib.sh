# Sourced by the loopback scripts: a scratch folder $dir removed on exit, with every process in
# $pids killed first, and free_port, a free TCP port on 127.0.0.1. Usage: source it with a prefix
# for the folder's name (e.g. `. "$here/scripts/loopback-lib.sh" helmet-smm`).
dir="$(mktemp -d "/tmp/${1:-helmet-loopback}.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
