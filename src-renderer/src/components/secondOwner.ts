import type { Instruction } from './connect';

/**
 * The connect dialog for an owner who is not the primary owner (docs/ui.md "A second owner"):
 * `agent-rooms connect` on this machine reads the primary owner's token from the data home, so
 * it would create and wake the agent as the primary owner, not as her. She is told what to do
 * in the window instead: mint a credential on the agent's page, put it where the lines say, and
 * make the agent wakeable in the runner editor (with the environment values its host needs),
 * once the primary owner allowed her runners.
 */
export function forOwner(i: Instruction, me: { is_primary: boolean; allow_runners?: boolean } | null | undefined): Instruction {
  if (!me || me.is_primary) return i;
  const lines = i.text.split('\n');
  const kept = lines.filter((l) => !/^\s*(npx )?agent-rooms connect\b/.test(l));
  const text = kept
    .join('\n')
    .replace(/^\n+/, '')
    .replace(/^# What it writes:/m, '# Set up by hand, with a credential minted for you on the agent’s page:');
  const wake = me.allow_runners
    ? 'Then make it wake on a mention: in Runners on the agent’s page, pick the host’s preset and set the environment values its host needs (its API key).'
    : 'To make it wake on a mention, the primary owner first allows your runners (under “People on this server”); then pick the host’s preset in Runners on the agent’s page and set its environment values.';
  return {
    ...i,
    where: `The agent-rooms connect command is for the primary owner of this machine: it would act as them, not as you. Mint a credential on the agent’s page (shown once) and put it where these lines say <credential>. ${wake}`,
    text,
  };
}
