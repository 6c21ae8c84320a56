/* version.h — the release of PerfLens, one definition for both programs:
 * perflens and perflens-agent print PL_VERSION_LINE with their own name
 * (--version), the agent sends PL_VERSION in HELLO, and ci/agents.sh and
 * ci/dist.sh read it from the PL_VERSION line below. */
#ifndef PL_VERSION_H
#define PL_VERSION_H

#define PL_VERSION "0.1.0"

/* printf format of the --version line: "NAME VERSION (protocol N)", given
 * the program's name and PL_PROTOCOL_VERSION (msg.h) */
#define PL_VERSION_LINE "%s " PL_VERSION " (protocol %u)\n"

#endif
