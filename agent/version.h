/* version.h — the agent's version, the one definition: --version (main.c)
 * and HELLO (session.c) print it; ci/agents.sh and ci/dist.sh read it from
 * this line and pass it back with -DPLA_VERSION. */
#ifndef PLA_VERSION_H
#define PLA_VERSION_H

#ifndef PLA_VERSION
#define PLA_VERSION "0.1.0"
#endif

#endif
