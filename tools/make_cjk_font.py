"""Make the CJK font subset the HTML report embeds and the plots use (run once; the output
is committed as src/mjsim/data/mjsim-cjk.otf with its licence, OFL-mjsim-cjk.txt).

Source: Noto Sans CJK TC (SIL Open Font License 1.1), e.g. Debian's fonts-noto-cjk:

    apt-get install fonts-noto-cjk
    python tools/make_cjk_font.py [--source /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]

The subset holds printable ASCII and every CJK character mjsim can write: the values of
mjsim.names.CHINESE and every CJK character in the package's .py and .html sources (tile
names, section titles). Re-run it when a Chinese name is added (tests/test_report_font.py
fails until then). As a Modified Version under the OFL it does not use the reserved font
names: its family is "mjsim CJK subset".
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "mjsim"
OUT = PACKAGE / "data" / "mjsim-cjk.otf"
LICENCE = PACKAGE / "data" / "OFL-mjsim-cjk.txt"
FAMILY = "mjsim CJK subset"
DEFAULT_SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
DEBIAN_COPYRIGHT = "/usr/share/doc/fonts-noto-cjk/copyright"


def is_cjk(ch: str) -> bool:
    return ord(ch) >= 0x2E80


def wanted_text() -> str:
    """ASCII plus every CJK character mjsim writes (sorted, unique)."""
    sys.path.insert(0, str(PACKAGE.parent))
    from mjsim.vocab import CHINESE

    chars = set("".join(CHINESE.values()))
    for path in sorted(PACKAGE.glob("*.py")) + sorted(PACKAGE.glob("*.html")):
        chars.update(c for c in path.read_text(encoding="utf-8") if is_cjk(c))
    chars = {c for c in chars if is_cjk(c)}
    return "".join(chr(i) for i in range(0x20, 0x7F)) + "".join(sorted(chars))


def load_source(path: str) -> TTFont:
    """The Traditional Chinese face (mjsim's names are in traditional characters)."""
    if path.endswith((".ttc", ".otc")):
        for font in TTCollection(path).fonts:
            if font["name"].getDebugName(4) == "Noto Sans CJK TC":
                return font
        raise SystemExit(f"{path}: no 'Noto Sans CJK TC' face")
    return TTFont(path)


def rename(font: TTFont) -> None:
    """A Modified Version under the OFL: no reserved names (keep the copyright and licence)."""
    name = font["name"]
    for rec in list(name.names):
        if rec.nameID in (1, 4, 16):
            name.setName(FAMILY, rec.nameID, rec.platformID, rec.platEncID, rec.langID)
        elif rec.nameID in (3, 6, 17, 18):
            value = FAMILY.replace(" ", "") + ("-Regular" if rec.nameID in (3, 6) else "")
            name.setName("Regular" if rec.nameID == 17 else value, rec.nameID, rec.platformID,
                         rec.platEncID, rec.langID)
    if "CFF " in font:   # the CFF table carries its own names
        cff = font["CFF "].cff
        cff.fontNames = [FAMILY.replace(" ", "") + "-Regular"]
        top = cff.topDictIndex[0]
        top.FamilyName, top.FullName = FAMILY, FAMILY


def licence_text(font: TTFont) -> str:
    copyright_line = font["name"].getDebugName(0)
    ofl = Path(DEBIAN_COPYRIGHT).read_text(encoding="utf-8")
    start = ofl.index(" SIL OPEN FONT LICENSE Version 1.1")
    block = ofl[start:].split("\nLicense:", 1)[0]
    lines = [("" if l.strip() == "." else l[1:]) for l in block.splitlines()]
    text = "\n".join(lines).strip()
    return (f"mjsim-cjk.otf is a subset of Noto Sans CJK TC (Regular), renamed \"{FAMILY}\".\n"
            f"{copyright_line}\n\n-----------------------------------------------------------\n{text}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=DEFAULT_SOURCE)
    args = ap.parse_args()
    font = load_source(args.source)
    text = wanted_text()
    options = subset.Options()
    options.layout_features = []          # horizontal text, no alternates: smallest file
    options.name_IDs = ["*"]
    options.name_languages = [0x409]
    options.hinting = False
    options.desubroutinize = True
    sub = subset.Subsetter(options)
    sub.populate(text=text)
    sub.subset(font)
    rename(font)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    font.save(OUT)
    LICENCE.write_text(licence_text(font), encoding="utf-8")
    cjk = [c for c in text if is_cjk(c)]
    print(f"{OUT}: {OUT.stat().st_size:,} bytes, {len(cjk)} CJK characters + ASCII")


if __name__ == "__main__":
    main()
