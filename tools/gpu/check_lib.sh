# tools/gpu/check_lib.sh: what the vendor checks (amdgcn_check.sh, ptx_check.sh,
# vendor_check.sh) share, sourced by them; not run on its own.

# pick NAME|PATH...: the first that is a command on PATH or an executable path; 1 if none
pick() {
	for t; do
		if command -v "$t" >/dev/null 2>&1; then command -v "$t"; return 0; fi
		if [ -x "$t" ]; then echo "$t"; return 0; fi
	done
	return 1
}

# pick_clang SCRIPT: $CLANG, else Debian's clang-15, else clang; exits 2 naming SCRIPT if none
pick_clang() {
	clang=${CLANG:-$(pick clang-15 clang)} || { echo "$1: no clang (Debian: clang-15)" >&2; exit 2; }
}

# build_options FILE: the options of a leading `// build options: ...` line (fieldfuse
# compile --emit cl --target FIXTURE), the ones the runtime adds to that device's build
build_options() {
	sed -n '1s|^// build options: *||p' "$1"
}
