/* pl-fleet-profile.c — see pl-fleet-profile.h. */
#include "pl-fleet-profile.h"

#include <elf.h>
#include <gio/gio.h>
#include <string.h>

#include "msg.h"
#include "pl-sym-embed.h"

#define PID 1
#define FIRST_PC 0x100000u
#define PC_STEP 0x10u

static struct pl_str str_of(const char *s)
{
	return (struct pl_str){ s, (uint32_t)strlen(s) };
}

/* The address of a frame label, given its frames in embed when new. */
static guint64 pc_of(GHashTable *pcs, PlSymEmbed *embed, const char *label)
{
	gpointer v;
	if (g_hash_table_lookup_extended(pcs, label, NULL, &v))
		return GPOINTER_TO_SIZE(v);
	guint64 pc = FIRST_PC + PC_STEP * g_hash_table_size(pcs);
	g_hash_table_insert(pcs, (gpointer)label, GSIZE_TO_POINTER(pc));
	const char *sp = strrchr(label, ' ');
	g_autofree char *name = sp ? g_strndup(label, (gsize)(sp - label)) : g_strdup(label);
	PlFrameInfo fr = { .function = *name ? name : NULL,
			   .module = sp ? sp + 1 : "[unknown]",
			   .rel_addr = pc };
	/* the leaf is asked as an address, its callers as return addresses */
	pl_sym_embed_put_frames(embed, PID, pc, FALSE, &fr, 1);
	pl_sym_embed_put_frames(embed, PID, pc, TRUE, &fr, 1);
	return pc;
}

PlProfile *pl_fleet_profile_new(GPtrArray *stacks, const char *event, const char *name,
				guint64 max_samples, GError **error)
{
	guint64 total = 0;
	for (guint i = 0; i < stacks->len; i++)
		total += ((const PlFleetStack *)stacks->pdata[i])->count;
	if (total > max_samples) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
			    "%" G_GUINT64_FORMAT " samples are selected, over the %" G_GUINT64_FORMAT
			    " a profile is built from: narrow --where or --since, or export "
			    "--format collapsed (any size)",
			    total, max_samples);
		return NULL;
	}
	PlProfile *p = pl_profile_new(NULL);
	struct pl_msg m = { .type = PL_MSG_HELLO };
	m.u.hello = (struct pl_msg_hello){
		.protocol_version = PL_PROTOCOL_VERSION,
		.agent_version = str_of("fleet"),
		.machine = str_of("fleet"),
		.e_machine = EM_X86_64,
		.byte_order = PL_LITTLE_ENDIAN,
		.word_size = 8,
		.page_size = 4096,
		.kernel_release = str_of(""),
		.hostname = str_of(name ? name : "fleet"),
		.ncpus = 1,
	};
	pl_profile_ingest(&m, p);
	memset(&m, 0, sizeof m);
	m.type = PL_MSG_EVENT_DESC;
	m.u.event_desc.index = 0;
	m.u.event_desc.role = PL_ROLE_SAMPLED;
	m.u.event_desc.name = str_of(event ? event : "samples");
	pl_profile_ingest(&m, p);

	/* the profile's symbols answer from this table alone; a frame's
	 * answer goes in before the first sample that needs it */
	PlSymEmbed *embed = pl_sym_embed_new();
	pl_symbols_set_embedded(pl_profile_get_symbols(p), embed);
	g_autoptr(GHashTable) pcs = g_hash_table_new(g_str_hash, g_str_equal);
	struct pl_msg *sm = g_new0(struct pl_msg, 1); /* a sample is large: not on the stack */
	sm->type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &sm->u.sample;
	s->pid = s->tid = PID;
	s->cpumode = 2; /* PERF_RECORD_MISC_USER */
	s->period = 1;
	for (guint i = 0; i < stacks->len; i++) {
		const PlFleetStack *st = stacks->pdata[i];
		guint n = 0;
		for (; st->frames[n] && n < PL_MAX_CALLCHAIN; n++)
			s->callchain[n] = pc_of(pcs, embed, st->frames[n]);
		if (n == 0)
			s->callchain[n++] = pc_of(pcs, embed, "[unknown]");
		s->nr_callchain = n;
		s->ip = s->callchain[0];
		for (guint64 k = 0; k < st->count; k++) {
			s->time++;
			pl_profile_ingest(sm, p);
		}
	}
	g_free(sm);
	pl_profile_finish(p);
	return p;
}
