"""Render resources/icons/traceeval-studio.svg into the committed icon assets: the freedesktop hicolor
theme (PNGs plus the scalable SVG), packaging/windows/traceeval-studio.ico and
packaging/macos/traceeval-studio.icns.

Run it after editing the SVG: `.venv/bin/python packaging/make_icons.py` (needs PySide6, no display).
The ICO and ICNS files are assembled here from PNG payloads: Qt's ico writer stores one BMP image per
file, and an explicit ICNS keeps control over which entry types are written.
"""
from __future__ import annotations

import os
import shutil
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "resources" / "icons" / "traceeval-studio.svg"
HICOLOR = ROOT / "resources" / "icons" / "hicolor"
ICO = ROOT / "packaging" / "windows" / "traceeval-studio.ico"
ICNS = ROOT / "packaging" / "macos" / "traceeval-studio.icns"
NAME = "traceeval-studio"
HICOLOR_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS entry type -> pixel size (the @2x types hold the doubled size of their point size).
ICNS_TYPES = {b"ic11": 32, b"ic12": 64, b"ic07": 128, b"ic13": 256, b"ic08": 256, b"ic14": 512, b"ic09": 512,
              b"ic10": 1024}


def render_png(renderer, size: int) -> bytes:
    """The SVG drawn antialiased onto a transparent size x size image, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QImage, QPainter

    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG"):
        raise RuntimeError(f"cannot encode the {size} px icon as PNG")
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A multi-image ICO with PNG entries (read by Windows Vista and later): a 6-byte header, one
    16-byte directory entry per image (width/height 0 means 256), then the PNG data."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, payload = b"", b""
    for size in sizes:
        data = pngs[size]
        side = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset + len(payload))
        payload += data
    return header + entries + payload


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file: 'icns' plus the big-endian total length, then per entry its type and length
    (both including the 8-byte entry header) and the PNG data."""
    entries = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
                       for kind, size in ICNS_TYPES.items())
    return b"icns" + struct.pack(">I", 8 + len(entries)) + entries


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # noqa: F841 (kept alive while painting)
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"make_icons: cannot read {SVG}", file=sys.stderr)
        return 1
    sizes = sorted(set(HICOLOR_SIZES) | set(ICO_SIZES) | set(ICNS_TYPES.values()))
    pngs = {size: render_png(renderer, size) for size in sizes}
    written = []
    for size in HICOLOR_SIZES:
        target = HICOLOR / f"{size}x{size}" / "apps" / f"{NAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pngs[size])
        written.append(target)
    scalable = HICOLOR / "scalable" / "apps" / f"{NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SVG, scalable)
    written.append(scalable)
    for target, data in ((ICO, ico_bytes({size: pngs[size] for size in ICO_SIZES})), (ICNS, icns_bytes(pngs))):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)
    for target in written:
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
