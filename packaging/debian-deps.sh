#!/usr/bin/env bash
# Debian packages TraceEval Studio needs beyond Python 3.11, Node and a JDK 17:
# - Qt offscreen/desktop rendering libraries and a font, and the X11 libraries Qt's xcb plugin needs
#   to open a window on a desktop (libxcb-cursor0 ... libxcb-keysyms1);
# - bubblewrap and libseccomp2: the tracer sandbox (namespaces, a file system view, a seccomp
#   filter) - without them runs refuse unless allowed by TRACEEVAL_SANDBOX_ALLOW (docs/security.md);
# - libasm-java: ASM, the bytecode library of the Java tracer's agent;
# - desktop-file-utils, appstream: the tests validate the .desktop file and the AppStream metainfo;
# - xvfb, xauth: the tests start the packaged app on a virtual X display (xvfb-run).
# Installs only what is missing (apt-get update once), with sudo when not root.
set -euo pipefail
needed="libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-dejavu-core bubblewrap libseccomp2 libasm-java
        libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 desktop-file-utils appstream
        xvfb xauth"
missing=$(for package in $needed; do dpkg -s "$package" >/dev/null 2>&1 || echo "$package"; done)
if [ -n "$missing" ]; then
  as_root=""
  [ "$(id -u)" -eq 0 ] || as_root="sudo"
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq $missing >/dev/null
fi
