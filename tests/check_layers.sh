#!/usr/bin/env bash
# The tree's structural rules (docs/DESIGN.md "Layers"), checked on every test run:
#  1. a folder is a layer; a file includes project headers only by layer path
#     ("core/sample.h") and only from its own layer or a lower one;
#  2. no file over 600 lines and no function over 80 lines outside tests/.
# Prints each violation as FILE:LINE: what, and exits 1 if there is any.
set -euo pipefail
top=${1:-$(dirname "$0")/..}
cd "$top"
# rank of each layer: a file may include from ranks <= its own (its own: same folder)
declare -A rank=([bpf]=0 [core]=1 [sources]=2 [record]=3 [explain]=4 [ui]=4 [export]=4 [cli]=5)
bad=0
dirs=$(for d in "${!rank[@]}"; do [ -d "$d" ] && echo "$d"; done)
files=$(find $dirs -name '*.[ch]' | sort)
for f in $files; do
	layer=${f%%/*}
	mine=${rank[$layer]}
	while IFS=: read -r line inc; do
		inc=${inc#*\"}
		inc=${inc%\"*}
		target=${inc%%/*}
		if [ "$target" = "$inc" ]; then
			# bare name: only generated or BPF-side headers (vmlinux.h, the skeleton)
			case "$inc" in vmlinux.h | *.skel.h | *.bpf.h | xiotop.h) [ "$layer" = bpf ] || [ "$inc" != xiotop.h ] && continue ;; esac
			echo "$f:$line: includes \"$inc\" by bare name: use its layer path"
			bad=1
			continue
		fi
		if [ -z "${rank[$target]+x}" ]; then
			echo "$f:$line: includes \"$inc\" from $target/, which is not a layer"
			bad=1
		elif [ "${rank[$target]}" -gt "$mine" ] || { [ "${rank[$target]}" -eq "$mine" ] && [ "$target" != "$layer" ]; }; then
			echo "$f:$line: $layer/ includes \"$inc\" of $target/, a layer above or beside it"
			bad=1
		fi
	done < <(grep -n '^#include "' "$f" || true)
	lines=$(wc -l <"$f")
	if [ "$lines" -gt 600 ]; then
		echo "$f: $lines lines (at most 600)"
		bad=1
	fi
done
# functions over 80 lines: from a line that opens a function body at column 0 to its "}"
for f in $(find $dirs -name '*.c' | sort); do
	awk -v f="$f" '
		/^[a-zA-Z].*\)$/ || /^[a-zA-Z].*\) *\{$/ { sig = FNR; name = $0 }
		/^\{/ || (/^[a-zA-Z].*\) *\{$/) { if (sig) { start = FNR; inbody = 1 } }
		/^\}/ && inbody { if (FNR - start - 1 > 80) printf "%s:%d: function of %d lines (at most 80): %s\n", f, sig, FNR - start - 1, name; inbody = 0; sig = 0 }
	' "$f" | grep . && bad=1 || true
done
if [ "$bad" -ne 0 ]; then
	echo "check_layers: FAILED"
	exit 1
fi
echo "check_layers: $(echo "$files" | wc -w) files, layers and sizes as the design says"
