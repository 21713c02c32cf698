"""The Linux desktop entry, the AppStream metainfo and the icon assets (packaging/make_icons.py):
the freedesktop validators accept them, their ids agree, and every icon file holds the sizes it claims.
No Qt needed: PNG sizes are read from the IHDR chunk."""
from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / "io.github.traceeval.Studio.desktop"
METAINFO = LINUX / "io.github.traceeval.Studio.metainfo.xml"
ICONS = ROOT / "resources" / "icons"
HICOLOR = ICONS / "hicolor"
ICO = ROOT / "packaging" / "windows" / "traceeval-studio.ico"
ICNS = ROOT / "packaging" / "macos" / "traceeval-studio.icns"
HICOLOR_SIZES = {16, 32, 48, 64, 128, 256, 512}
ICNS_SIZES = {b"ic07": 128, b"ic08": 256, b"ic09": 512, b"ic10": 1024, b"ic11": 32, b"ic12": 64, b"ic13": 256,
              b"ic14": 512}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run_tool(*command: str) -> subprocess.CompletedProcess:
    if shutil.which(command[0]) is None:
        pytest.fail(f"{command[0]} is not installed: run `bash packaging/debian-deps.sh`")
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, which the format puts first."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR", "PNG without a leading IHDR chunk"
    return struct.unpack(">II", data[16:24])


def test_desktop_file_validates():
    result = run_tool("desktop-file-validate", str(DESKTOP))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert not output.strip(), output  # not even a hint


def test_metainfo_validates():
    result = run_tool("appstreamcli", "validate", "--no-net", "--explain", str(METAINFO))
    assert result.returncode == 0, result.stdout + result.stderr


def test_metainfo_and_desktop_entry_agree():
    entry = desktop_entry()
    component = ET.parse(METAINFO).getroot()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert component.findtext("id") == DESKTOP.name.removesuffix(".desktop") == METAINFO.name.removesuffix(
        ".metainfo.xml")
    assert component.find("launchable[@type='desktop-id']").text == DESKTOP.name
    assert component.findtext("name") == entry["Name"]
    assert component.findtext("icon[@type='stock']") == entry["Icon"]
    assert component.find("releases/release").get("version") == project["version"]  # the newest comes first
    commands = set(project["scripts"]) | set(project["gui-scripts"])
    assert {binary.text for binary in component.iter("binary")} == commands
    assert entry["Exec"].split()[0] in project["gui-scripts"]


def test_hicolor_icons_have_the_size_of_their_folder():
    icon = desktop_entry()["Icon"]
    pngs = sorted(HICOLOR.glob(f"*/apps/{icon}.png"))
    sizes = set()
    for png in pngs:
        width, height = (int(side) for side in png.parent.parent.name.split("x"))
        assert png_size(png.read_bytes()) == (width, height), png
        sizes.add(width)
    assert sizes == HICOLOR_SIZES
    scalable = HICOLOR / "scalable" / "apps" / f"{icon}.svg"
    assert scalable.read_bytes() == (ICONS / f"{icon}.svg").read_bytes(), "rerun packaging/make_icons.py"


def test_ico_holds_one_png_per_size():
    data = ICO.read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = set()
    for index in range(count):
        width, height, _colors, _zero, _planes, _bits, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * index:22 + 16 * index])
        assert offset >= 6 + 16 * count and offset + length <= len(data)
        side = width or 256
        assert (width, height) == (side % 256, side % 256)
        assert png_size(data[offset:offset + length]) == (side, side)
        sizes.add(side)
    assert len(sizes) == count and {16, 32, 48, 256} <= sizes


def test_icns_entries_hold_pngs_of_their_type_size():
    data = ICNS.read_bytes()
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    position, kinds = 8, []
    while position < len(data):
        kind, length = data[position:position + 4], struct.unpack(">I", data[position + 4:position + 8])[0]
        assert length > 8 and position + length <= len(data), kind
        side = ICNS_SIZES[kind]
        assert png_size(data[position + 8:position + length]) == (side, side), kind
        kinds.append(kind)
        position += length
    assert sorted(kinds) == sorted(ICNS_SIZES)
