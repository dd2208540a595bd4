"""The report's pictures, as inline SVG: the heat map of families x columns (each cell coloured by its worst verdict)
and the bar chart of findings per kind."""
from .html_page import COLOURS, esc
from .schema import FINDINGS


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


def pictures(rep):
    cols, fams = rep["columns"], rep["families"]
    cw, rh, lw, top = 22, 20, 230, 110
    width, height = max(lw + cw * len(cols) + 120, lw + 5 * 130), top + rh * len(fams) + 40
    svg = [f'<svg id="heatmap" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">']
    for j, c in enumerate(cols):
        x = lw + cw * j + cw / 2
        svg.append(f'<text transform="translate({x + 4},{top - 6}) rotate(-60)">{esc(c["label"])}</text>')
    for i, f in enumerate(fams):
        y = top + rh * i
        svg.append(f'<a href="families/{esc(f["slug"])}.html"><text x="{lw - 6}" y="{y + 14}" '
                   f'text-anchor="end">{esc(f["family"])}</text></a>')
        for j, c in enumerate(cols):
            cell = f["cells"].get(c["key"])
            colour, meaning = heat_colour(cell)
            counts = ", ".join(f"{k} {v}" for k, v in sorted((cell or {}).items()))
            svg.append(f'<rect x="{lw + cw * j}" y="{y}" width="{cw - 2}" height="{rh - 2}" fill="{colour}" '
                       f'stroke="#bbb"><title>{esc(f["family"])} x {esc(c["label"])}: {meaning}'
                       f'{"; " + esc(counts) if counts else ""}</title></rect>')
    ly = top + rh * len(fams) + 14
    for n, (colour, text) in enumerate((("#5cb85c", "pass"), ("#f0ad4e", "reviewed divergence"),
                                        ("#5bc0de", "beyond chapter"), ("#d9534f", "unexplained"),
                                        ("#d5d5d5", "no verdict"))):
        x = lw + n * 130
        svg.append(f'<rect x="{x}" y="{ly}" width="12" height="12" fill="{colour}"/><text x="{x + 16}" y="{ly + 10}">'
                   f"{text}</text>")
    svg.append("</svg>")

    totals = {}
    for s in rep["summary"].values():
        for c in FINDINGS + ("beyond_chapter",):
            totals[c] = totals.get(c, 0) + s.get(c, 0)
    top_n = max(totals.values()) or 1
    bw, bh = 420, 22
    bars = [f'<svg id="findings-chart" width="{150 + bw + 60}" '
            f'height="{bh * len(totals) + 10}" font-family="sans-serif" font-size="12">']
    for i, (c, n) in enumerate(totals.items()):
        w = round(bw * n / top_n, 1)
        bars.append(f'<text x="145" y="{i * bh + 15}" text-anchor="end">{c}</text><rect x="150" y="{i * bh + 3}" '
                    f'width="{w}" height="{bh - 6}" fill="{COLOURS[c]}" stroke="#999"><title>{c}: {n}</title></rect>'
                    f'<text x="{150 + w + 5}" y="{i * bh + 15}" data-class="{c}">{n}</text>')
    bars.append("</svg>")
    return ['<h2 id="pictures">Pictures</h2><p class="muted">Families x columns, coloured by the worst verdict in the '
            "cell (hover for the counts; a family's name opens its page):</p>", "".join(svg),
            '<p class="muted">Findings per kind, all columns:</p>', "".join(bars)]
