import t from 'tap';
import { AcpProvider } from '../../actors/sessions/runtime/acpProvider.ts';
import { mockAcpAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import { runtimeConformance } from './conformance.ts';

runtimeConformance(t, {
  provider: async () => new AcpProvider({ stopGraceMs: 500 }),
  realProcesses: true,
  agentCommand: mockAcpAgentCommand,
});
