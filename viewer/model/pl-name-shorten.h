/* pl-name-shorten.h — long C++ names made readable in narrow frames:
 * template arguments and parameter lists folded,
 *   std::vector<std::pair<int, std::string>, std::allocator<…> >::_M_realloc_insert<int&>(int&)
 *   → std::vector<…>::_M_realloc_insert<…>(…)
 * (an empty list stays "()" or "<>": "(…)" says something was folded)
 * while what names the function stays: namespaces, classes, operators
 * (operator<, operator<<, operator<=>, operator->, operator()), lambdas
 * ({lambda(int)#1} keeps its number) and "(anonymous namespace)".
 * Names without '<' or '(' come back unchanged.  No GTK.
 */
#ifndef PL_NAME_SHORTEN_H
#define PL_NAME_SHORTEN_H

#include <glib.h>

G_BEGIN_DECLS

/* A new string: name with its template arguments and parameters folded. */
char *pl_name_shorten(const char *name);

G_END_DECLS

#endif
