#!/usr/bin/env bash
# The table page's spoken call-outs (碰 吃 招 胡 黄 偎 提 跑), made on this machine from Debian's espeak-ng
# (Mandarin voice "cmn"; espeak-ng is GPL-3.0-or-later, its output is not covered by that licence) and sox.
# Output: src/daer/web/voice/NAME.wav, 8-bit 16 kHz mono, a few KB each, committed with this script
# (docs/sound.md). Re-run after changing a word:  apt-get install espeak-ng sox && bash scripts/make_voice.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=src/daer/web/voice
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "${PHRASES_ONLY:-}" = 1 ] || for pair in peng:碰 chi:吃 zhao:招 hu:胡 huang:黄 wei:偎 ti:提 pao:跑; do
  name=${pair%%:*}
  word=${pair#*:}
  # slower and a little higher than the default: one word, called out across a table
  espeak-ng -v cmn -s 130 -p 60 -a 200 -w "$tmp/$name.wav" "$word"
  # trim the silence around the word, level it, then 16 kHz 8-bit mono (decodeAudioData reads it everywhere)
  sox -R -D "$tmp/$name.wav" -r 16000 -c 1 -b 8 -e unsigned-integer "$out/$name.wav" \
    silence 1 0.01 1% reverse silence 1 0.01 1% reverse norm -1
  printf '%s %s %s bytes\n' "$name" "$word" "$(stat -c %s "$out/$name.wav")"
done
# The quick phrases (快捷语, src/daer/server/social/phrases.py PHRASES): the same voice, a little faster (a
# sentence, not a word), as say-<id>.wav.  PHRASES_ONLY=1 makes only these.
.venv/bin/python - <<'PY' > "$tmp/phrases.txt" 2>/dev/null || python3 -c 'import sys; sys.exit("needs the project installed (.venv)")'
from daer.server.social.phrases import PHRASES
for i, zh, _en in PHRASES:
    print(f"{i}\t{zh}")
PY
while IFS=$'\t' read -r id text; do
  espeak-ng -v cmn -s 150 -p 55 -a 200 -w "$tmp/say-$id.wav" "$text"
  sox -R -D "$tmp/say-$id.wav" -r 16000 -c 1 -b 8 -e unsigned-integer "$out/say-$id.wav" \
    silence 1 0.01 1% reverse silence 1 0.01 1% reverse norm -1
  printf 'say-%s %s %s bytes\n' "$id" "$text" "$(stat -c %s "$out/say-$id.wav")"
done < "$tmp/phrases.txt"
