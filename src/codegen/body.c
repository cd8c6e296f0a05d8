/* codegen/body.c: building and printing kernel bodies (see body.h). */
#include "codegen/body.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "codegen/index.h"
#include "util/grow.h"

const ffu_body_style ffu__body_scalar = {-1, NULL, 0};

void ffu__body_init(ffu_body *b, const char *main_ix)
{
	memset(b, 0, sizeof *b);
	b->main_ix = main_ix;
}

void ffu__body_free(ffu_body *b)
{
	free(b->seg);
	free(b->stmt);
	free(b->inv);
	ffu__sb_free(&b->text);
	memset(b, 0, sizeof *b);
}

/* A new statement, open for segments; NULL when out of memory. */
static ffu_stmt *new_stmt(ffu_body *b, ffu_stmt_kind kind)
{
	if (!ffu__grow((void **)&b->stmt, &b->capstmt, b->nstmt + 1, sizeof *b->stmt)) {
		b->oom = true;
		return NULL;
	}
	ffu_stmt *s = &b->stmt[b->nstmt++];
	*s = (ffu_stmt){.kind = kind, .dst = -1, .first = b->nseg, .inv = -1};
	b->open = true;
	return s;
}

void ffu__body_stmt(ffu_body *b, ffu_stmt_kind k, int dst, ffu_vform form)
{
	ffu_stmt *s = new_stmt(b, k);
	if (s)
		s->dst = dst, s->form = form;
}

void ffu__body_def(ffu_body *b, const ffu_field *type, ffu_vform form, int dst, ffu_stmt_op sop, ffu_op op)
{
	ffu_stmt *s = new_stmt(b, FFU_STMT_DEF);
	if (s)
		s->type = type, s->form = form, s->dst = dst, s->sop = sop, s->op = op;
}

/* A new segment at the end of the open statement (opening a TEXT one if none is); NULL
   when out of memory. */
static ffu_seg *add_seg(ffu_body *b, ffu_seg_kind kind)
{
	if (!b->open && !new_stmt(b, FFU_STMT_TEXT))
		return NULL;
	if (!ffu__grow((void **)&b->seg, &b->capseg, b->nseg + 1, sizeof *b->seg)) {
		b->oom = true;
		return NULL;
	}
	ffu_seg *s = &b->seg[b->nseg++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	b->stmt[b->nstmt - 1].n++;
	return s;
}

/* Keeps n bytes of text in the body's text; its offset. */
static size_t keep_text(ffu_body *b, const char *t, size_t n)
{
	size_t off = b->text.len;
	ffu__sb_appendn(&b->text, t, n);
	b->oom |= b->text.oom;
	return off;
}

/* Literal text; each '\n' ends a statement. */
static void add_text(ffu_body *b, const char *t, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(t, '\n', n);
		size_t k = nl ? (size_t)(nl - t) + 1 : n;
		ffu_seg *s = add_seg(b, FFU_SEG_TEXT);
		if (!s)
			return;
		s->off = keep_text(b, t, k);
		s->len = k;
		if (nl)
			b->open = false;
		t += k;
		n -= k;
	}
}

/* One standard conversion spec[0..len) (starting at '%') with its argument, as text. */
static void add_conversion(ffu_body *b, const char *spec, size_t len, va_list *ap)
{
	char fmt[32], out[128];
	int n = 0;
	if (len >= sizeof fmt)
		len = sizeof fmt - 1;
	memcpy(fmt, spec, len);
	fmt[len] = '\0';
	char conv = spec[len - 1];
	bool ll = len >= 3 && spec[len - 2] == 'l' && spec[len - 3] == 'l', z = len >= 2 && spec[len - 2] == 'z';
	if (conv == 's') {
		const char *s = va_arg(*ap, const char *);
		if (len == 2) { /* plain %s: any length */
			add_text(b, s, strlen(s));
			return;
		}
		n = snprintf(out, sizeof out, fmt, s);
	} else if (conv == '%') {
		n = snprintf(out, sizeof out, "%%");
	} else if (ll && (conv == 'd' || conv == 'i')) {
		n = snprintf(out, sizeof out, fmt, va_arg(*ap, long long));
	} else if (ll) {
		n = snprintf(out, sizeof out, fmt, va_arg(*ap, unsigned long long));
	} else if (z) {
		n = snprintf(out, sizeof out, fmt, va_arg(*ap, size_t));
	} else if (conv == 'u' || conv == 'x' || conv == 'X') {
		n = snprintf(out, sizeof out, fmt, va_arg(*ap, unsigned));
	} else {
		n = snprintf(out, sizeof out, fmt, va_arg(*ap, int)); /* d, i, c */
	}
	if (n > 0)
		add_text(b, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
}

void ffu__body_printf(ffu_body *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *p = fmt;
	while (*p) {
		const char *pc = strchr(p, '%');
		if (!pc) {
			add_text(b, p, strlen(p));
			break;
		}
		if (pc > p)
			add_text(b, p, (size_t)(pc - p));
		ffu_seg *s = NULL;
		switch (pc[1]) {
		case 'L':
			if ((s = add_seg(b, FFU_SEG_LOCAL))) {
				s->form = (ffu_vform)va_arg(ap, int);
				s->id = va_arg(ap, int);
			}
			p = pc + 2;
			continue;
		case 'I':
			if ((s = add_seg(b, FFU_SEG_INDEX)))
				s->id = va_arg(ap, int);
			p = pc + 2;
			continue;
		case 'T':
			add_seg(b, FFU_SEG_TEMP);
			p = pc + 2;
			continue;
		case 'F': {
			const ffu_field *f = va_arg(ap, const ffu_field *);
			const char *suffix = va_arg(ap, const char *);
			if ((s = add_seg(b, FFU_SEG_FIELD))) {
				s->f = f;
				s->len = strlen(suffix);
				s->off = keep_text(b, suffix, s->len);
			}
			p = pc + 2;
			continue;
		}
		case 'C':
			if ((s = add_seg(b, FFU_SEG_COORD))) {
				s->id = va_arg(ap, int);
				s->dims = va_arg(ap, const int64_t *);
				s->rank = va_arg(ap, int);
				s->d = va_arg(ap, int);
			}
			p = pc + 2;
			continue;
		case 'E':
			if ((s = add_seg(b, FFU_SEG_IXEXPR))) {
				s->in = va_arg(ap, const ffu_inst *);
				s->d = va_arg(ap, int);
				s->id = va_arg(ap, int);
			}
			p = pc + 2;
			continue;
		default:
			break;
		}
		/* a standard conversion: flags, width, precision, length, conversion */
		const char *q = pc + 1;
		while (*q && strchr("-+ #0123456789.hlz", *q))
			q++;
		if (!*q)
			break;
		add_conversion(b, pc, (size_t)(q - pc + 1), &ap);
		p = q + 1;
	}
	va_end(ap);
}

void ffu__body_inv(ffu_body *b, const ffu_inv_stmt *s)
{
	if (!ffu__grow((void **)&b->inv, &b->capinv, b->ninv + 1, sizeof *b->inv)) {
		b->oom = true;
		return;
	}
	b->inv[b->ninv] = *s;
	ffu_stmt *st = new_stmt(b, FFU_STMT_INV);
	if (st) {
		st->inv = b->ninv++;
		st->dst = s->dst, st->form = s->dst_form;
	}
	b->open = false;
}

bool ffu__body_stmt_operand(const ffu_body *b, int k, int j, ffu_vform *form, int *value)
{
	const ffu_stmt *st = &b->stmt[k];
	if (st->kind == FFU_STMT_INV) {
		const ffu_inv_stmt *s = &b->inv[st->inv];
		if (j == 0)
			*form = s->src_form, *value = s->src;
		return j == 0;
	}
	const bool own = st->kind == FFU_STMT_DEF || st->kind == FFU_STMT_STEP;
	for (int i = 0; i < st->n; i++) {
		const ffu_seg *s = &b->seg[st->first + i];
		if (s->kind != FFU_SEG_LOCAL || (own && s->form == st->form && s->id == st->dst) || j-- > 0)
			continue;
		*form = s->form, *value = s->id;
		return true;
	}
	return false;
}

const char *ffu__body_local_name(char buf[32], ffu_vform form, int id, const ffu_body_style *st)
{
	if (st->lane >= 0)
		snprintf(buf, 32, "%c%d_%d", (char)form, id, st->lane);
	else
		snprintf(buf, 32, "%c%d", (char)form, id);
	return buf;
}

/* Index variable ix's name in style st: the kernel's main index, or x<ix>. */
static const char *index_name(char buf[32], const ffu_body *b, int ix, const ffu_body_style *st)
{
	if (ix != 0)
		return ffu__body_local_name(buf, 'x', ix, st);
	if (st->lane >= 0)
		snprintf(buf, 32, "%s_%d", b->main_ix, st->lane);
	else
		snprintf(buf, 32, "%s", b->main_ix);
	return buf;
}

/* "<field>_" of f in style st (a vector instance's field and prime: "<field>_v<vw>_"). */
static void print_field(ffu_strbuf *sb, const ffu_field *f, const ffu_body_style *st)
{
	ffu__sb_append(sb, f->name);
	if (st->vx && (f == st->vx || f == st->vx->prime))
		ffu__sb_printf(sb, "_v%d", st->vw);
	ffu__sb_append(sb, "_");
}

static void print_seg(ffu_strbuf *sb, const ffu_body *b, const ffu_seg *s, const ffu_body_style *st)
{
	char name[32];
	const char *text = b->text.data;
	switch (s->kind) {
	case FFU_SEG_TEXT:
		ffu__sb_appendn(sb, text + s->off, s->len);
		return;
	case FFU_SEG_LOCAL:
		ffu__sb_append(sb, ffu__body_local_name(name, s->form, s->id, st));
		return;
	case FFU_SEG_INDEX:
		ffu__sb_append(sb, index_name(name, b, s->id, st));
		return;
	case FFU_SEG_TEMP:
		ffu__sb_append(sb, "t_");
		if (st->lane >= 0)
			ffu__sb_printf(sb, "_%d", st->lane);
		return;
	case FFU_SEG_FIELD:
		print_field(sb, s->f, st);
		ffu__sb_appendn(sb, text + s->off, s->len);
		return;
	case FFU_SEG_COORD:
		ffu__index_coord(sb, index_name(name, b, s->id, st), s->dims, s->rank, s->d);
		return;
	case FFU_SEG_IXEXPR:
		ffu__index_expr(sb, s->in, s->d, index_name(name, b, s->id, st));
		return;
	}
}

/*
 * An inversion as one statement. The comment names the inversion's parts for a reader of
 * the generated program (it used to be the marker the wide kernels parsed; nothing reads it).
 */
static void print_inv(ffu_strbuf *sb, const ffu_inv_stmt *s, const ffu_body_style *st)
{
	char dst[32], msrc[32], csrc[32] = "-";
	const char *fn = s->f->name;
	ffu__body_local_name(dst, s->dst_form, s->dst, st);
	ffu__body_local_name(msrc, 'm', s->src, st);
	if (s->src_form == 'c')
		ffu__body_local_name(csrc, 'c', s->src, st);
	ffu__sb_printf(sb, "\t/*ffu_inv %s %s_t %s %s %s*/ %s_t %s = %s_inv(%s);\n", fn, fn, dst, msrc, csrc, fn, dst, fn,
		       msrc);
}

void ffu__body_print_stmt(ffu_strbuf *sb, const ffu_body *b, int k, const ffu_body_style *st)
{
	const ffu_stmt *s = &b->stmt[k];
	char name[64];
	if (s->kind == FFU_STMT_INV) {
		print_inv(sb, &b->inv[s->inv], st);
		return;
	}
	if (s->kind == FFU_STMT_DEF) { /* "\t<type> <local>" */
		ffu__sb_append(sb, "\t");
		if (s->type->kind == FFU_ELEM_POINT) {
			ffu__sb_append(sb, ffu__cl_type_name(s->type, name));
		} else {
			print_field(sb, s->type, st);
			ffu__sb_append(sb, "t");
		}
		ffu__sb_printf(sb, " %s", ffu__body_local_name(name, s->form, s->dst, st));
	}
	for (int i = 0; i < s->n; i++)
		print_seg(sb, b, &b->seg[s->first + i], st);
}

void ffu__body_print(ffu_strbuf *sb, const ffu_body *b, const ffu_body_style *st)
{
	for (int k = 0; k < b->nstmt; k++)
		ffu__body_print_stmt(sb, b, k, st);
}

void ffu__body_print_plan(ffu_strbuf *sb, const ffu_body *b, const char *indent)
{
	static const char *const kind[] = {[FFU_STMT_TEXT] = "text",     [FFU_STMT_DEF] = "def",
					   [FFU_STMT_STEP] = "step",     [FFU_STMT_INDEX] = "index",
					   [FFU_STMT_ACCUM] = "accum",   [FFU_STMT_STORE] = "store",
					   [FFU_STMT_RETURN] = "return", [FFU_STMT_INV] = "inv"};
	static const char *const sop[] = {[FFU_SOP_NONE] = "", [FFU_SOP_OP] = "op", [FFU_SOP_LOAD] = "load",
					  [FFU_SOP_CONST] = "const", [FFU_SOP_TO_MONT] = "to_mont",
					  [FFU_SOP_FROM_MONT] = "from_mont"};
	char name[32];
	for (int k = 0; k < b->nstmt; k++) {
		const ffu_stmt *st = &b->stmt[k];
		ffu__sb_printf(sb, "%s%s", indent, kind[st->kind]);
		if (st->kind == FFU_STMT_DEF || st->kind == FFU_STMT_STEP || st->kind == FFU_STMT_INV)
			ffu__sb_printf(sb, " %s", ffu__body_local_name(name, st->form, st->dst, &ffu__body_scalar));
		else if (st->kind == FFU_STMT_INDEX)
			ffu__sb_printf(sb, " %s", index_name(name, b, st->dst, &ffu__body_scalar));
		else if (st->dst >= 0)
			ffu__sb_printf(sb, " %d", st->dst);
		if (st->kind == FFU_STMT_DEF)
			ffu__sb_printf(sb, " %s", st->sop == FFU_SOP_OP ? ffu__ops[st->op].keyword : sop[st->sop]);
		ffu_vform f;
		int v;
		for (int j = 0; ffu__body_stmt_operand(b, k, j, &f, &v); j++)
			ffu__sb_printf(sb, "%s%s", j ? " " : " (", ffu__body_local_name(name, f, v, &ffu__body_scalar));
		if (ffu__body_stmt_operand(b, k, 0, &f, &v))
			ffu__sb_append(sb, ")");
		for (int i = 0; i < st->n && st->kind != FFU_STMT_INDEX; i++) /* the index variables it reads at */
			if (b->seg[st->first + i].kind == FFU_SEG_INDEX)
				ffu__sb_printf(sb, " @%s", index_name(name, b, b->seg[st->first + i].id, &ffu__body_scalar));
		ffu__sb_append(sb, "\n");
	}
}

ffu_status ffu__body_status(const ffu_body *b, ffu_error *e)
{
	if (b->oom || b->text.oom)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	return FFU_STATUS_OK;
}
