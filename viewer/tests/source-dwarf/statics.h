/* statics.h — what main.c calls in a.c and b.c. */
unsigned long run_a(unsigned long n);
unsigned long run_b(unsigned long n);
