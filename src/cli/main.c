/* src/cli/main.c
 *
 * Entry point: everything else, the commands included, is in libfabsim.a
 * (cli/commands.c dispatches), so that tests can drive it.
 */
#include "cli/cli.h"

int main(int argc, char **argv) {
    return cli_main(argc, argv);
}
