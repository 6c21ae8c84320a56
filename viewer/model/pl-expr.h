/* pl-expr.h — the expressions users write on the command line and in the
 * app: regression gates (report --fail-if) and the regular expressions of
 * stack filters, call-tree transforms and marker pairs.  docs/expressions.md
 * holds the grammar for users.
 *
 * Every reader here is strict: it accepts a string only when it can read
 * the whole of it, and otherwise fails with a GError in PL_EXPR_ERROR whose
 * code is the byte offset in the string where reading stopped (what a
 * caret points at) and whose message says what was expected there, with an
 * example of a correct expression.  An accepted gate prints back
 * (pl_gate_dup_canonical) to a string that reads as the same gate.
 *
 * Gate grammar (spaces allowed around each token):
 *
 *   gate     := [measure ':'] function op number ['%']
 *             | 'unwound' op number ['%']      the share of stacks with user
 *                                              frames unwound to their start
 *   measure  := 'self' | 'total'               (default self)
 *   op       := '>' | '>=' | '<' | '<='
 *   number   := digits ['.' digits] | '.' digits      0 to 100
 *   function := '"' text with \" and \\ '"'
 *             | a bare name: any text in which '<' and '>' pair up as
 *               template brackets (operator<, operator>>, operator-> …
 *               excepted); it cannot start with WORD: other than self: or
 *               total:, so a mistyped measure is refused, not taken as a
 *               name (quote such a name, or write self: first)
 *
 * The operator is the last '<' or '>' outside the name's brackets: a
 * name like std::vector<int>::push_back needs no quotes.  No GTK; no state.
 */
#ifndef PL_EXPR_H
#define PL_EXPR_H

#include <glib.h>

G_BEGIN_DECLS

#define PL_EXPR_ERROR (pl_expr_error_quark())
GQuark pl_expr_error_quark(void);

/* Sets error in PL_EXPR_ERROR, code pos (a byte offset into the string the
 * user wrote); fmt is the message. */
void pl_expr_set_error(GError **error, gsize pos, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* Compiles the PCRE pattern that starts at byte base of what the user
 * wrote, as the filters do (G_REGEX_OPTIMIZE).  NULL with a PL_EXPR_ERROR
 * at the byte PCRE stopped at (base + its offset) when it does not
 * compile, or when it is empty (it would match everything). */
GRegex *pl_expr_regex_new(const char *pattern, gsize base, GError **error);

/* ─── gates ──────────────────────────────────────────────────────────── */

typedef enum {
	PL_GATE_SELF,
	PL_GATE_TOTAL,
	PL_GATE_UNWOUND,
} PlGateMeasure;

typedef enum {
	PL_GATE_GT,
	PL_GATE_GE,
	PL_GATE_LT,
	PL_GATE_LE,
} PlGateOp;

typedef struct {
	PlGateMeasure measure;
	gboolean explicit_measure; /* written with self:/total: */
	char *name;                /* the function (NULL for unwound) */
	PlGateOp op;
	double value;              /* 0..100 */
	char *value_text;          /* the number, canonical: "5", "0.5", "99.25" */
	gsize name_at, name_end;   /* where the name is in the string parsed */
} PlGate;

/* Reads s; FALSE with error set (PL_EXPR_ERROR) when s is not a gate. */
gboolean pl_gate_parse(const char *s, PlGate *gate, GError **error);
void pl_gate_clear(PlGate *gate);
/* The gate as it is read: "self:hot_leaf>5%", "unwound<99%",
 * "total:\"operator>\">=1.5%". */
char *pl_gate_dup_canonical(const PlGate *gate);
/* TRUE when value crosses the limit (the gate fails the run). */
gboolean pl_gate_holds(const PlGate *gate, double value);
const char *pl_gate_op_name(PlGateOp op);
/* TRUE when two gates read the same (measure, name, op and value). */
gboolean pl_gate_equal(const PlGate *a, const PlGate *b);
/* TRUE for a placeholder the report may legitimately lack, such as
 * "[unknown]" or "[kernel]": a gate on it measures 0 % when absent. */
gboolean pl_gate_name_is_placeholder(const char *name);

G_END_DECLS

#endif
