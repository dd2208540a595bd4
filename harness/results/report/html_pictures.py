"""The report's pictures, as inline SVG (templates/pictures.html.j2): the heat map of families x columns (each cell
coloured by its worst verdict) and the bar chart of findings per kind. This module lays them out."""
from .html_page import COLOURS, ENV
from framework.documents.schema import FINDINGS

HEAT_KEY = (("#5cb85c", "pass"), ("#f0ad4e", "reviewed divergence"), ("#5bc0de", "beyond chapter"),
            ("#d9534f", "unexplained"), ("#d5d5d5", "no verdict"))


def heat_colour(cell):
    if not cell:
        return "#ffffff", "no case"
    if any(cell.get(c) for c in ("fail", "compile_error", "crash", "timeout")):
        return "#d9534f", "unexplained findings"
    if cell.get("spec_divergence"):
        return "#f0ad4e", "reviewed divergences"
    if cell.get("beyond_chapter"):
        return "#5bc0de", "beyond the chapter"
    if cell.get("pass"):
        return "#5cb85c", "all verdicts pass"
    return "#d5d5d5", "no verdict (not supported / skipped)"


def heat_map(rep):
    cols, fams = rep["columns"], rep["families"]
    cw, rh, lw, top = 22, 20, 230, 110
    rows = []
    for i, f in enumerate(fams):
        y = top + rh * i
        cells = []
        for j, c in enumerate(cols):
            cell = f["cells"].get(c["key"])
            colour, meaning = heat_colour(cell)
            cells.append({"x": lw + cw * j, "colour": colour, "meaning": meaning, "label": c["label"],
                          "counts": ", ".join(f"{k} {v}" for k, v in sorted((cell or {}).items()))})
        rows.append({"y": y, "text_y": y + 14, "family": f["family"], "slug": f["slug"], "cells": cells})
    return {"width": max(lw + cw * len(cols) + 120, lw + 5 * 130), "height": top + rh * len(fams) + 40,
            "columns": [{"x": lw + cw * j + cw / 2 + 4, "label": c["label"]} for j, c in enumerate(cols)],
            "label_y": top - 6, "name_x": lw - 6, "cell_w": cw - 2, "cell_h": rh - 2, "rows": rows,
            "key_y": top + rh * len(fams) + 14,
            "key": [{"x": lw + n * 130, "colour": colour, "text": text} for n, (colour, text) in enumerate(HEAT_KEY)]}


def findings_chart(rep):
    totals = {}
    for s in rep["summary"].values():
        for c in FINDINGS + ("beyond_chapter",):
            totals[c] = totals.get(c, 0) + s.get(c, 0)
    top_n = max(totals.values()) or 1
    bw, bh = 420, 22
    bars = []
    for i, (c, n) in enumerate(totals.items()):
        w = round(bw * n / top_n, 1)
        bars.append({"cls": c, "n": n, "w": w, "y": i * bh + 3, "text_y": i * bh + 15, "value_x": 150 + w + 5,
                     "colour": COLOURS[c]})
    return {"width": 150 + bw + 60, "height": bh * len(totals) + 10, "bar_h": bh - 6, "bars": bars}


def picture_data(rep):
    return {"heat": heat_map(rep), "bars": findings_chart(rep)}


def pictures(rep):
    """The index page's lines of the pictures section."""
    return str(ENV.get_template("pictures.html.j2").module.section(picture_data(rep))).split("\n")
