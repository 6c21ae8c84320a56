/* test/boards/aeabi-unwind-stubs.c — the EHABI personality routines a
 * static musl program built with -funwind-tables needs to link on ARM.
 *
 * Each .ARM.exidx entry in compact form references __aeabi_unwind_cpp_pr0
 * (or pr1/pr2 for longer unwind sequences), normally defined by libgcc's
 * unwinder; musl + compiler-rt have none.  Only C++ exceptions and
 * _Unwind_Backtrace ever call them, and the workload does neither: the
 * tables are there for the profiler, which reads them from the ELF file.
 * Built without LTO (mkinitramfs.sh): with it the definitions are gone
 * before the linker resolves the tables' references.
 */
void __aeabi_unwind_cpp_pr0(void);
void __aeabi_unwind_cpp_pr1(void);
void __aeabi_unwind_cpp_pr2(void);
void __aeabi_unwind_cpp_pr0(void) {}
void __aeabi_unwind_cpp_pr1(void) {}
void __aeabi_unwind_cpp_pr2(void) {}
