/* elf-sym.h — where a symbol of an ELF file lies in the file, for uprobes.
 * No allocation (the file is mapped for the lookup); thread-compatible. */
#ifndef PLA_ELF_SYM_H
#define PLA_ELF_SYM_H

#include <stddef.h>
#include <stdint.h>

/* The file offset of the defined symbol `name` of the ELF file at path
 * (.symtab, else .dynsym; its address through the PT_LOAD that holds it;
 * Thumb's bit 0 cleared), any class and byte order.  Returns 0, or
 * -ENOENT / -ENOMEM with a sentence for the user in err. */
int pla_elf_sym_offset(const char *path, const char *name, uint64_t *offset, char *err,
		       size_t errlen);

#endif
