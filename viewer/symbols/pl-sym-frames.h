/* pl-sym-frames.h — an address of one ELF file as frames, innermost
 * (deepest inline) first (pl-sym-frames.c).  Internal to viewer/symbols.
 */
#ifndef PL_SYM_FRAMES_H
#define PL_SYM_FRAMES_H

#include "pl-symbols-types.h"

/* a: the address as the ELF has it (pc - load bias; for a return address
 * already pc - 1).  elf must be ready (its Dwfl made).  Writes at most max
 * frames (at least one: an unknown address gives one with function NULL)
 * and returns how many; their strings are interned in self. */
guint pl_sym_frames(PlSymbols *self, PlElf *elf, guint64 a, PlFrameInfo *fr, guint max);

#endif
