/* pl-function-names.h — how a table, a stack or a user names functions
 * that share a name.
 *
 * A function is (name, module, inlined, defining file) (pl-profile.h), so
 * a program may hold several functions of one name: static ones of
 * different source files, or a library's and the program's.  Where a text
 * shows functions by name alone, two such rows would read the same.  A
 * PlFunctionNames is made for the set of functions one output shows (those
 * with samples in an aggregate, or every function of the profile) and
 * labels them:
 *
 *   - a label (pl_profile_get_function_label) that no other function of
 *     the set shares, or that all its functions share with one defining
 *     file (a header's static inline, one name in two modules), is
 *     unchanged: ordinary reports read as before;
 *   - else each gets " (FILE)": the shortest tail of whole path components
 *     of its DW_AT_decl_file that is a tail of no other file of that label
 *     ("helper (a.c)", "helper (x/util.c)"), "?" when the file is unknown
 *     (no DWARF for it).
 *
 * Users name a function the same way: "NAME" or "NAME (FILE)", FILE a
 * defining file's path or any tail of whole components of it (or "?"),
 * which is what the labels print; pl_function_names_find() gives every
 * function so named, grouped by defining file, so that a caller can refuse
 * or pick when a bare name is ambiguous.
 *
 * Borrows the profile (and the aggregate), which must outlive it.  One
 * thread at a time.  No GTK.
 */
#ifndef PL_FUNCTION_NAMES_H
#define PL_FUNCTION_NAMES_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct _PlFunctionNames PlFunctionNames;

/* The set: the functions with samples in agg, or, agg NULL, every function
 * p has now. */
PlFunctionNames *pl_function_names_new(PlProfile *p, PlAggregate *agg);
void pl_function_names_free(PlFunctionNames *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFunctionNames, pl_function_names_free)

/* Also qualifies, in self, every label that other must qualify (the two
 * sides of a diff: "helper" of A and "helper (a.c)" of B are one row only
 * if both are named alike). */
void pl_function_names_share(PlFunctionNames *self, PlFunctionNames *other);

/* func's label, " (FILE)" appended when the set needs it (above); functions
 * outside the set get their plain label.  Owned by self. */
const char *pl_function_names_get(PlFunctionNames *self, guint32 func);

/* The functions of the set named by spec, one defining file each. */
typedef struct {
	const char *spelling; /* "NAME (FILE)", or "NAME" when the name is one
			       * file's in the set; owned by the names */
	const char *file;     /* the defining file (NULL: unknown) */
	GArray *ids;          /* guint32: its functions (inline copies, modules) */
	guint32 hottest;      /* the one of ids with the most total samples */
	PlCount self, total;  /* of them all: self summed, total the samples with
			       * any of them on the stack (once per sample) */
} PlFunctionMatch;

/* spec: "NAME", or "NAME (FILE)" when no function is named spec itself.
 * A new GPtrArray of PlFunctionMatch, the one with the most samples first
 * (then by spelling), empty when none; more than one entry: the name is
 * ambiguous here. */
GPtrArray *pl_function_names_find(PlFunctionNames *self, const char *spec);
/* "'a (x.c)', 'a (y.c)'": the spellings of matches, for messages.  New. */
char *pl_function_matches_dup_list(GPtrArray *matches);

/* ─── patterns over labels ───────────────────────────────────────────── */

/* A transform's or a stack-filter rule's pattern names a function when
 * its regex re matches the function's plain label (what it always did, so
 * "^helper$" of an old saved view still takes every helper), or the label
 * self shows for it ("helper (a.c)": what the app's frame menu anchors for
 * a shared name, so that a.c's helper alone is taken), or when the
 * function is one of literal (below).  func outside the set: the plain
 * label only.  literal may be NULL. */
gboolean pl_function_names_match(PlFunctionNames *self, const GRegex *re, GHashTable *literal,
				 guint32 func);
/* The functions spec names read literally as 'NAME (FILE)' (as
 * pl_function_names_find reads it: any tail of the file), so that an
 * option is written as the report prints it ('helper (a.c)' is no regex
 * of that text: its parentheses group).  A new set of ids
 * (GUINT_TO_POINTER), NULL when spec is no such spelling or names none. */
GHashTable *pl_function_names_literal_new(PlFunctionNames *self, const char *spec);

/* ─── the profile's own labels ───────────────────────────────────────── */

/* func's label among every function p has now (pl_function_names_new(p,
 * NULL)): what the app shows in every view, so that it and the report
 * name functions alike.  Made again when p gains functions or its short
 * names change; the string is p's and lives as long as p.  p's thread. */
const char *pl_function_names_label(PlProfile *p, guint32 func);

G_END_DECLS

#endif
