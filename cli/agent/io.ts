import { BdClient } from '../bd/client.ts';

/** What an agent-facing command gets: its arguments, the environment, a client, and where to write. */
export interface AgentIo {
  argv: string[];
  env: NodeJS.ProcessEnv;
  client: BdClient;
  out(text: string): void;
}

export function agentIo(argv: string[], env: NodeJS.ProcessEnv): AgentIo {
  return { argv, env, client: new BdClient(env), out: (text) => process.stdout.write(text) };
}
