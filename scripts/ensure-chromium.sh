#!/usr/bin/env bash
# Installs Debian's chromium for the status page's browser test (StatusPageBrowserTest) when it is
# missing and this machine can (root and apt-get); prints why not otherwise and exits 1, and the
# test then skips with that reason. Nothing else on the machine is changed.
set -u
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium is not installed and this user cannot install it (needs root and apt-get)"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >/tmp/helmet-chromium-install.log 2>&1; then
  apt-get update >>/tmp/helmet-chromium-install.log 2>&1
  apt-get install -y --no-install-recommends chromium >>/tmp/helmet-chromium-install.log 2>&1
fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "apt-get could not install chromium (see /tmp/helmet-chromium-install.log)"
  exit 1
fi
