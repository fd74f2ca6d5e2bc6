#!/bin/sh
# make-corpus.sh DIR FILE...: one seed file per line of the transcripts (requests, replies,
# events, and the deliberately broken lines of protocol/conformance).
set -e
dir=$1
shift
n=0
for f in "$@"; do
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        printf '%s' "$line" > "$dir/seed-$n"
    done < "$f"
done
echo "fuzz corpus: $n seeds in $dir"
