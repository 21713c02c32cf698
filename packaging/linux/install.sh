#!/usr/bin/env bash
# Install this unpacked TraceEval Studio folder: the app to PREFIX/lib/traceeval-studio, the
# commands `traceeval-gui` and `traceeval` to PREFIX/bin, the menu entry, icons and AppStream
# metadata to PREFIX/share. PREFIX is ~/.local (for this user) unless --prefix says otherwise
# (e.g. --prefix /usr/local as root). --uninstall removes exactly what an install put there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix="$HOME/.local" action=install
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --uninstall) action=uninstall; shift ;;
    *) echo "install.sh: unknown option $1 (options: --prefix DIR, --uninstall)" >&2; exit 2 ;;
  esac
done
app="$prefix/lib/traceeval-studio"
id=io.github.traceeval.Studio
icon_sizes="16 32 48 64 128 256 512"
installed=("$prefix/bin/traceeval-gui" "$prefix/bin/traceeval" "$prefix/share/applications/$id.desktop"
           "$prefix/share/metainfo/$id.metainfo.xml" "$prefix/share/icons/hicolor/scalable/apps/traceeval-studio.svg")
for size in $icon_sizes; do installed+=("$prefix/share/icons/hicolor/${size}x${size}/apps/traceeval-studio.png"); done

refresh_menus() {
  command -v update-desktop-database >/dev/null && update-desktop-database -q "$prefix/share/applications" || true
  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
}

if [ "$action" = uninstall ]; then
  rm -rf "$app"
  rm -f "${installed[@]}"
  refresh_menus
  echo "removed TraceEval Studio from $prefix"
  exit 0
fi

[ -x "$here/traceeval-gui" ] || { echo "install.sh: $here holds no traceeval-gui: run it from the unpacked app" >&2; exit 2; }
if [ "$here" != "$app" ]; then
  rm -rf "$app"
  mkdir -p "$app"
  cp -a "$here/." "$app/"
fi
mkdir -p "$prefix/bin"
ln -sfn "$app/traceeval-gui" "$prefix/bin/traceeval-gui"
ln -sfn "$app/traceeval" "$prefix/bin/traceeval"
# Menus do not see the user's PATH: the entry names the installed command by its full path.
mkdir -p "$prefix/share/applications"
sed "s|^Exec=traceeval-gui|Exec=$app/traceeval-gui|" "$app/share/applications/$id.desktop" \
  > "$prefix/share/applications/$id.desktop"
install -D -m 644 "$app/share/metainfo/$id.metainfo.xml" "$prefix/share/metainfo/$id.metainfo.xml"
icons="$app/_internal/resources/icons/hicolor"
install -D -m 644 "$icons/scalable/apps/traceeval-studio.svg" "$prefix/share/icons/hicolor/scalable/apps/traceeval-studio.svg"
for size in $icon_sizes; do
  install -D -m 644 "$icons/${size}x${size}/apps/traceeval-studio.png" \
    "$prefix/share/icons/hicolor/${size}x${size}/apps/traceeval-studio.png"
done
refresh_menus
echo "installed TraceEval Studio in $app"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "note: $prefix/bin is not on your PATH; add it to run traceeval-gui and traceeval from a terminal" ;;
esac
