#!/usr/bin/env bash
# Draws the installable app's PNG icons from the project's own src/daer/web/icon.svg (committed; run again after
# changing the SVG).  Needs rsvg-convert: Debian's librsvg2-bin (apt-get install librsvg2-bin).
#   icon-192.png, icon-512.png      "any" icons: the SVG as it is (rounded green tile, two 字牌 cards)
#   icon-maskable-512.png           "maskable": a full-bleed green square with the cards shrunk into the
#                                   safe zone (the circle of 40 % radius a launcher may crop to)
set -euo pipefail
cd "$(dirname "$0")/../src/daer/web"
command -v rsvg-convert >/dev/null || { echo "needs rsvg-convert: apt-get install librsvg2-bin" >&2; exit 1; }
rsvg-convert -w 192 -h 192 icon.svg -o icon-192.png
rsvg-convert -w 512 -h 512 icon.svg -o icon-512.png
# the SVG's drawing without its outer <svg> tags and its rounded tile, scaled about the centre
inner=$(sed -e '1d' -e '$d' -e '/<rect width="64" height="64"/d' icon.svg)
masked=$(mktemp --suffix=.svg)
trap 'rm -f "$masked"' EXIT
cat > "$masked" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
  <rect width="64" height="64" fill="#1f5b3f"/>
  <g transform="translate(32 32) scale(0.62) translate(-32 -32)">
$inner
  </g>
</svg>
SVG
rsvg-convert -w 512 -h 512 "$masked" -o icon-maskable-512.png
ls -l icon-192.png icon-512.png icon-maskable-512.png
