/* board-burn.h — the hot path shared by board-burn.c and libboardhot.so. */
#ifndef BOARD_BURN_H
#define BOARD_BURN_H
unsigned long hot_leaf(unsigned long x);
unsigned long compute_mid(unsigned long x);
unsigned long compute_outer(unsigned long x);
#endif
