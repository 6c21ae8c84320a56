/* main-gtk.c — the standalone viewer binary (perflens-gtk) until the
 * perflens command starts the UI itself. */
#include "pl-ui.h"

int main(int argc, char **argv)
{
	return pl_ui_run(argc, argv);
}
