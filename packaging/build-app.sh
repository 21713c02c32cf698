#!/usr/bin/env bash
# Build the desktop app: dist/traceeval-studio/ (one folder: the `traceeval-gui` window, the
# `traceeval` command line, install.sh, the menu entry and AppStream metadata) and its tarball
# dist/traceeval-studio-VERSION-linux-ARCH.tar.gz; then start the built app once, off screen, on
# the demo dataset. See packaging/README.md.
#   --python PY  build with this interpreter's environment (it needs `pip install -e '.[gui]'
#                pyinstaller`); default: a fresh build/app-venv with exactly that installed
#   --out DIR    where the app and the tarball go (default: dist)
set -euo pipefail
cd "$(dirname "$0")/.."
python="" out="dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --python) python="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "build-app.sh: unknown option $1 (options: --python PY, --out DIR)" >&2; exit 2 ;;
  esac
done

bash packaging/debian-deps.sh
if [ -z "$python" ]; then
  python3 -m venv build/app-venv
  build/app-venv/bin/pip install -q -e '.[gui]' 'pyinstaller>=6.10'
  python=build/app-venv/bin/python
fi
out="$(mkdir -p "$out" && cd "$out" && pwd)"
"$python" -m PyInstaller --noconfirm --log-level WARN --distpath "$out" --workpath "$out/.pyinstaller" \
  packaging/traceeval-studio.spec
rm -rf "$out/.pyinstaller"

app="$out/traceeval-studio"
install -m 755 packaging/linux/install.sh "$app/install.sh"
install -D -m 644 packaging/linux/io.github.traceeval.Studio.desktop "$app/share/applications/io.github.traceeval.Studio.desktop"
install -D -m 644 packaging/linux/io.github.traceeval.Studio.metainfo.xml \
  "$app/share/metainfo/io.github.traceeval.Studio.metainfo.xml"

version="$("$app/traceeval" --version | cut -d' ' -f2)"
tarball="$out/traceeval-studio-$version-linux-$(uname -m).tar.gz"
tar -C "$out" -czf "$tarball" traceeval-studio

# The built app must start and show the demo: off screen, in a workspace folder of its own.
check="$(mktemp -d)"
trap 'rm -rf "$check"' EXIT
TRACEEVAL_WORKSPACE_DIR="$check" QT_QPA_PLATFORM=offscreen "$app/traceeval-gui" --screenshot "$check/window.png"
echo "built $app ($(du -sh "$app" | cut -f1)) and $tarball ($(du -sh "$tarball" | cut -f1))"
