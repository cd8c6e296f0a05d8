/*
 * src/hlo/hlo.h: the HLO text front end: text -> module (parser) and module -> canonical
 * text (printer). Owned by the HLO front end; the dialect is documented in docs/hlo.md.
 *
 * The parser owns nothing after it returns: on success *out is a new, verified module the
 * caller frees with ffu__module_free; on failure *out is NULL and e (if given) holds the
 * status (EPARSE, EVERIFY, EUNSUPPORTED, ENOMEM), message and FILE:LINE:COL.
 * Printing then parsing gives back an equal module, and printing that gives the same text.
 * Text is read as XLA and ZKX write it (optional HloModule and ENTRY, instruction names
 * scoped per computation, ZKX's dialects of plain type names); the module keeps unique
 * names (later duplicates renamed NAME.N) and prints in fieldfuse's own dialect.
 */
#ifndef FFU_HLO_HLO_H
#define FFU_HLO_HLO_H

#include <stddef.h>

#include "fieldfuse/fieldfuse.h"
#include "ir/ir.h"
#include "util/strbuf.h"

/*
 * text holds len bytes (NUL bytes allowed, never read past len). file names the input in
 * error records only. Nesting is bounded (FFU_HLO_MAX_NESTING), so hostile input cannot
 * exhaust the stack.
 */
enum { FFU_HLO_MAX_NESTING = 64 };
ffu_status ffu__hlo_parse(ffu_module **out, const char *text, size_t len, const char *file,
			  ffu_error *e);
/* Same, in the dialect o asks for (NULL: FFU_DIALECT_AUTO); o's out fields are filled. */
ffu_status ffu__hlo_parse_with(ffu_module **out, const char *text, size_t len, const char *file,
			       ffu_parse_options *o, ffu_error *e);

/*
 * Appends m in canonical form (docs/hlo.md): `HloModule name`, then each computation in
 * m->comps order except that a callee (fusion calls=, reduce to_apply=) is always moved
 * before its callers, each with its signature, `%` names, ROOT marked, one blank line
 * before each computation. EINVAL if a name cannot be written back as one HLO word
 * ([A-Za-z0-9_.-]+).
 */
ffu_status ffu__hlo_print(ffu_strbuf *sb, const ffu_module *m, ffu_error *e);

#endif
