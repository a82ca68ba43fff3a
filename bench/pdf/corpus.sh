#!/usr/bin/env bash
# Writes PDFs of different producers into OUT, from texts Debian ships (licenses, manual pages,
# LaTeX's samples) and a few sentences of its own: LibreOffice (Writer from HTML and from a
# Word file), groff through Ghostscript's ps2pdf and groff's own gropdf, enscript through
# ps2pdf, Pango/Cairo (Latin and CJK), ReportLab, pdfTeX (LaTeX's sample2e), Ghostscript's
# pdfwrite and poppler's Cairo re-writing a pdfTeX file, and an image-only "scan". A producer
# that is not installed is left out with a note. Nothing here is committed: the files are
# written where OUT says.
# Usage: bench/pdf/corpus.sh OUT
#   (Debian: apt-get install poppler-utils ghostscript groff enscript pango1.0-tools
#    fonts-wqy-microhei fonts-dejavu-core python3-reportlab texlive-latex-base
#    libreoffice-writer-nogui)
set -uo pipefail
case ${1:-} in ""|-h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
out=$(realpath -m "$1"); mkdir -p "$out"
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
have() { command -v "$1" >/dev/null || { echo "skip $2: no $1" >&2; return 1; }; }
cjk_text() {
  cat <<'TXT'
港口的渡轮每天早上六点出发，下午返回。领航员在港务局登记潮汐表，商人在北码头卸下粮食和盐。
冬天的风暴改变沙洲的形状，测量员每年春天重新绘制航海图。灯塔在一一零二年的大火之后重建。
港の渡し船は毎朝六時に出発し、午後に戻ります。水先案内人は港湾事務所で潮汐表を記録します。
冬の嵐は砂州の形を変え、測量士は毎年春に海図を描き直します。
항구의 여객선은 매일 아침 여섯 시에 출발하여 오후에 돌아옵니다.
TXT
}
gpl=/usr/share/common-licenses/GPL-3
man1=$(ls /usr/share/man/man1/tar.1.gz /usr/share/man/man1/grep.1.gz 2>/dev/null | head -1)

if have soffice libreoffice; then
  # The GPL as HTML, paragraphs justified, converted by Writer.
  python3 - "$gpl" "$tmp/gpl-libreoffice.html" <<'PY'
import html, re, sys
text = open(sys.argv[1]).read()
paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]
with open(sys.argv[2], "w") as f:
    f.write('<html><head><meta charset="utf-8"><title>GNU GPL</title></head><body style="text-align:justify">')
    for p in paras:
        f.write("<p>%s</p>\n" % html.escape(p))
    f.write("</body></html>")
PY
  (cd "$tmp" && soffice --headless --convert-to pdf:writer_pdf_Export gpl-libreoffice.html >/dev/null 2>&1) && cp "$tmp/gpl-libreoffice.pdf" "$out/"
  # A table, and CJK text (its fonts embedded as Type 0 CID fonts), from Writer.
  python3 - "$tmp/tides-libreoffice.html" <<'PY'
import sys
ports = ["Port Avel", "Saltmere", "Gull Point", "Harrow", "Stillwater", "Vell"]
with open(sys.argv[1], "w") as f:
    f.write("<html><body><h1>Tide tables</h1><table border=1><tr><th>port</th><th>day</th><th>high water</th><th>low water</th><th>height (m)</th><th>pilot on duty</th></tr>\n")
    for d in range(1, 41):
        for i, p in enumerate(ports):
            h, m = (6 + d + i) % 24, (13 * d + 7 * i) % 60
            f.write(f"<tr><td>{p}</td><td>{d}</td><td>{h:02d}:{m:02d}</td><td>{(h + 6) % 24:02d}:{m:02d}</td><td>{2 + (d * i) % 5}.{(d + i) % 10}</td><td>Pilot {chr(65 + (d + i) % 26)}. Marsh</td></tr>\n")
    f.write("</table></body></html>")
PY
  (cd "$tmp" && soffice --headless --convert-to pdf:writer_pdf_Export tides-libreoffice.html >/dev/null 2>&1) && cp "$tmp/tides-libreoffice.pdf" "$out/"
  cjk_text > "$tmp/cjk-libreoffice.txt"
  (cd "$tmp" && soffice --headless --convert-to pdf cjk-libreoffice.txt >/dev/null 2>&1) && cp "$tmp/cjk-libreoffice.pdf" "$out/"
fi
if have groff groff && have ps2pdf ghostscript && [ -n "$man1" ]; then
  zcat "$man1" | groff -man -Tps 2>/dev/null | ps2pdf - "$out/man-groff-ps2pdf.pdf"
  zcat "$man1" | groff -man -Tpdf 2>/dev/null > "$out/man-gropdf.pdf"
fi
if have enscript enscript && have ps2pdf ghostscript; then
  enscript -q -B -p - "$gpl" | ps2pdf - "$out/gpl-enscript-ps2pdf.pdf"
fi
if have pango-view pango; then
  fold -s -w 90 /usr/share/common-licenses/Apache-2.0 | head -120 > "$tmp/apache.txt"
  pango-view -q --font="DejaVu Serif 10" --width=560 --wrap=word --output="$out/apache-pango-cairo.pdf" "$tmp/apache.txt" 2>/dev/null
  cjk_text > "$tmp/cjk.txt"
  pango-view -q --font="WenQuanYi Micro Hei 11" --width=500 --wrap=char --output="$out/cjk-pango-cairo.pdf" "$tmp/cjk.txt" 2>/dev/null
fi
if /usr/bin/python3 -c 'import reportlab' 2>/dev/null; then
  /usr/bin/python3 - "$gpl" "$out/gpl-reportlab.pdf" <<'PY'
import re, sys
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate
from xml.sax.saxutils import escape
text = open(sys.argv[1]).read()
paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()][:60]
style = getSampleStyleSheet()["BodyText"]
style.alignment = 4  # justified
SimpleDocTemplate(sys.argv[2], pagesize=A4, title="GNU GPL").build([Paragraph(escape(p), style) for p in paras])
PY
else
  echo "skip reportlab: no python3-reportlab" >&2
fi
if have pdflatex texlive; then
  for f in sample2e small2e; do
    src=$(kpsewhich $f.tex) && (cd "$tmp" && pdflatex -interaction=nonstopmode "$src" >/dev/null 2>&1) && cp "$tmp/$f.pdf" "$out/latex-$f.pdf"
  done
fi
if have gs ghostscript; then
  gs -q -dNOPAUSE -dBATCH -sDEVICE=pdfwrite -sOutputFile="$out/cm-gs-pdfwrite.pdf" "$repo/pipeline/load/testdata/latex/cm.pdf"
fi
if have pdftocairo poppler-utils; then
  pdftocairo -pdf "$repo/pipeline/load/testdata/latex/lm.pdf" "$out/lm-pdftocairo.pdf"
  # A scan: the page as an image and no text, which both readers should find empty.
  if have gs ghostscript; then
    pdftocairo -png -r 100 -singlefile "$repo/pipeline/load/testdata/latex/tounicode.pdf" "$tmp/scan"
    gs -q -dNOPAUSE -dBATCH -sDEVICE=pdfimage8 -r100 -sOutputFile="$out/scan-gs-image.pdf" "$repo/pipeline/load/testdata/latex/tounicode.pdf" 2>/dev/null ||
      echo "skip scan: gs has no pdfimage8 device" >&2
  fi
fi
ls -la "$out"
