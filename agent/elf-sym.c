/* elf-sym.c — a symbol of an ELF file on the board → its file offset, for
 * uprobes (perf.c, `--event u:PATH:SYMBOL`).  The board's file is the one
 * the kernel will patch, so the agent reads it there, not the viewer.
 *
 * Any class and byte order (armeb and aarch64_be agents exist); every
 * field is read through at(), which checks it lies inside the file: a
 * truncated or hostile file gives "not found", never a read past it.
 * The file is mapped read-only for the lookup and unmapped at once. */
#include "elf-sym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct elf {
	const uint8_t *p;
	uint64_t size;
	int is64, be, bad;
};

/* The n-byte field (1, 2, 4 or 8) at off, in the file's byte order. */
static uint64_t at(struct elf *e, uint64_t off, unsigned n)
{
	uint64_t v = 0;
	if (off > e->size || n > e->size - off) {
		e->bad = 1;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)e->p[off + i] << 8 * (e->be ? n - 1 - i : i);
	return v;
}

/* A word: 8 bytes at o64 in ELF64, 4 at o32 in ELF32. */
static uint64_t word(struct elf *e, uint64_t base, unsigned o64, unsigned o32)
{
	return e->is64 ? at(e, base + o64, 8) : at(e, base + o32, 4);
}

/* The value of the defined symbol `name` in the symbol table of section
 * type `type` (SHT_SYMTAB, SHT_DYNSYM); 0 when absent (no function is at
 * address 0 in a file that has a PT_LOAD for it). */
static uint64_t lookup(struct elf *e, uint64_t shoff, unsigned shentsize, unsigned shnum,
		       uint32_t type, const char *name)
{
	size_t nlen = strlen(name) + 1;
	for (unsigned i = 0; i < shnum && !e->bad; i++) {
		uint64_t sh = shoff + (uint64_t)i * shentsize;
		if (at(e, sh + 4, 4) != type)
			continue;
		uint64_t off = word(e, sh, 24, 16), size = word(e, sh, 32, 20);
		uint64_t link = at(e, sh + (e->is64 ? 40 : 24), 4);
		uint64_t ent = e->is64 ? 24 : 16;
		if (link >= shnum)
			continue;
		uint64_t str = link * shentsize + shoff;
		uint64_t stroff = word(e, str, 24, 16), strsize = word(e, str, 32, 20);
		if (e->bad || stroff > e->size || strsize > e->size - stroff)
			return 0;
		for (uint64_t s = 0; s + ent <= size && !e->bad; s += ent) {
			uint64_t n = at(e, off + s, 4);
			uint64_t value = word(e, off + s, 8, 4);
			uint64_t shndx = at(e, off + s + (e->is64 ? 6 : 14), 2);
			if (shndx != SHN_UNDEF && value && n < strsize && nlen <= strsize - n &&
			    !memcmp(e->p + stroff + n, name, nlen))
				return e->bad ? 0 : value;
		}
	}
	return 0;
}

int pla_elf_sym_offset(const char *path, const char *name, uint64_t *offset, char *err,
		       size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 64) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 fd < 0 ? strerror(errno) : "not an ELF file");
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	struct elf e = { .size = (uint64_t)st.st_size };
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -ENOMEM;
	}
	e.p = map;
	int rc = -ENOENT;
	if (memcmp(e.p, ELFMAG, SELFMAG) || (e.p[EI_CLASS] != ELFCLASS32 && e.p[EI_CLASS] != ELFCLASS64)) {
		snprintf(err, errlen, "cannot read %s: %s", path, "not an ELF file");
		goto out;
	}
	e.is64 = e.p[EI_CLASS] == ELFCLASS64;
	e.be = e.p[EI_DATA] == ELFDATA2MSB;
	uint64_t phoff = word(&e, 0, 32, 28), shoff = word(&e, 0, 40, 32);
	unsigned phent = (unsigned)at(&e, e.is64 ? 54 : 42, 2), phnum = (unsigned)at(&e, e.is64 ? 56 : 44, 2);
	unsigned shent = (unsigned)at(&e, e.is64 ? 58 : 46, 2), shnum = (unsigned)at(&e, e.is64 ? 60 : 48, 2);
	/* .symtab (every function, when not stripped), else .dynsym */
	uint64_t value = 0;
	if (shent >= (e.is64 ? 64u : 40u))
		value = lookup(&e, shoff, shent, shnum, SHT_SYMTAB, name);
	if (!value && !e.bad && shent >= (e.is64 ? 64u : 40u))
		value = lookup(&e, shoff, shent, shnum, SHT_DYNSYM, name);
	if (!value) {
		snprintf(err, errlen, "no symbol %s in %s (see nm -D)", name, path);
		goto out;
	}
	if (at(&e, 18, 2) == EM_ARM)
		value &= ~1ull; /* a Thumb function's address has bit 0 set */
	/* the file offset: through the PT_LOAD that maps the address */
	for (unsigned i = 0; i < phnum && phent >= (e.is64 ? 56u : 32u); i++) {
		uint64_t ph = phoff + (uint64_t)i * phent;
		uint64_t off = word(&e, ph, 8, 4), vaddr = word(&e, ph, 16, 8);
		uint64_t filesz = word(&e, ph, 32, 16);
		if (e.bad)
			break;
		if (at(&e, ph, 4) == PT_LOAD && value - vaddr < filesz) {
			*offset = value - vaddr + off;
			rc = 0;
			goto out;
		}
	}
	snprintf(err, errlen, "%s in %s is in no PT_LOAD", name, path);
out:
	munmap(map, (size_t)st.st_size);
	return rc;
}
