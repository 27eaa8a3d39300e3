import { defineRoute, type Route } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { contracts } from '../../../shared/contracts/index.js';
import { mintPassportForCredential } from './authenticate.js';
import {
  addAgentUseCase,
  listAgentsUseCase,
  listCredentialsUseCase,
  mintCredentialUseCase,
  readAgentUseCase,
  revokeAgentUseCase,
  revokeCredentialUseCase,
  revokeDeviceUseCase,
} from './use-cases.js';

function bearerOf(h: string | undefined): string | undefined {
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}

const passport = contracts.agents.passport;

/** The agents' routes: the owner's use cases (use-cases.ts), then the one transport route, an agent minting its passport. */
export const agentRoutes: Route[] = [
  addAgentUseCase.route,
  listAgentsUseCase.route,
  readAgentUseCase.route,
  mintCredentialUseCase.route,
  listCredentialsUseCase.route,
  revokeAgentUseCase.route,
  revokeCredentialUseCase.route,
  revokeDeviceUseCase.route,
  defineRoute({
    method: passport.method,
    path: passport.path,
    // A transport route (docs/architecture.md "Transport routes"): the agent's own credential,
    // read from the request's header, authenticates it, not an owner.
    auth: passport.auth,
    body: passport.body,
    handler: async ({ core, req }, { body }) => {
      const secret = bearerOf(req.headers.authorization);
      if (!secret) throw new AppError('UNAUTHENTICATED', 'present the agent credential as Authorization: Bearer');
      const { passport, expiresAt } = await mintPassportForCredential(core, secret, body.resource);
      return { passport, token_type: 'Bearer', expires_in: expiresAt - Math.floor(Date.now() / 1000) };
    },
  }),
];
