/* src/route/route_params.h
 *
 * The routing parameters, plain data: what net/params.h embeds in the run's
 * parameters. Kept apart from the policy table (route/route.h) so the packet
 * layer carries them without including the FIB and the policies.
 */
#ifndef FABSIM_ROUTE_ROUTE_PARAMS_H
#define FABSIM_ROUTE_ROUTE_PARAMS_H

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum routing_kind { ROUTING_STATIC, ROUTING_ADAPTIVE, ROUTING_ECMP, ROUTING_SPRAY };
enum routing_engine { ENGINE_MINHOP, ENGINE_UPDN, ENGINE_FTREE, ENGINE_FILE };

#endif /* FABSIM_ROUTE_ROUTE_PARAMS_H */
