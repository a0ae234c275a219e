import {
  Convoy,
  Handoff,
  Hook,
  Mail,
  Nudge,
  Prime,
  Runtime,
  SessionNudge,
  SessionPeek,
} from './agentFacing.ts';
import AgentAdd from './agent/add.ts';
import AgentList from './agent/list.ts';
import AgentOutput from './agent/output.ts';
import AgentRemove from './agent/remove.ts';
import AgentResume from './agent/resume.ts';
import AgentSet from './agent/set.ts';
import AgentShow from './agent/show.ts';
import AgentSuspend from './agent/suspend.ts';
import Cities from './cities.ts';
import CityCreate from './city/create.ts';
import CityStop from './city/stop.ts';
import CityUnregister from './city/unregister.ts';
import Events from './events.ts';
import EventsRotate from './events/rotate.ts';
import ExtmsgAdapters from './extmsg/adapters.ts';
import ExtmsgBind from './extmsg/bind.ts';
import ExtmsgSend from './extmsg/send.ts';
import ExtmsgTranscript from './extmsg/transcript.ts';
import FormulaCook from './formula/cook.ts';
import FormulaList from './formula/list.ts';
import FormulaPreview from './formula/preview.ts';
import FormulaShow from './formula/show.ts';
import Inspect from './inspect.ts';
import OrderCheck from './order/check.ts';
import OrderDisable from './order/disable.ts';
import OrderEnable from './order/enable.ts';
import OrderHistory from './order/history.ts';
import OrderList from './order/list.ts';
import ServiceList from './service/list.ts';
import ServiceRestart from './service/restart.ts';
import SessionAttach from './session/attach.ts';
import SessionClose from './session/close.ts';
import SessionCreate from './session/create.ts';
import SessionKill from './session/kill.ts';
import SessionList from './session/list.ts';
import SessionLogs from './session/logs.ts';
import SessionNew from './session/new.ts';
import SessionPending from './session/pending.ts';
import SessionRename from './session/rename.ts';
import SessionRespond from './session/respond.ts';
import SessionSend from './session/send.ts';
import SessionShow from './session/show.ts';
import SessionStop from './session/stop.ts';
import SessionSubmit from './session/submit.ts';
import SessionSuspend from './session/suspend.ts';
import SessionTranscript from './session/transcript.ts';
import SessionWake from './session/wake.ts';
import Init from './lifecycle/init.ts';
import Register from './lifecycle/register.ts';
import Restart from './lifecycle/restart.ts';
import Start from './lifecycle/start.ts';
import Stop from './lifecycle/stop.ts';
import { Resume, Suspend } from './lifecycle/suspend.ts';
import Unregister from './lifecycle/unregister.ts';
import Sling from './sling.ts';
import Status from './status.ts';
import SupervisorRun from './supervisor/run.ts';
import SupervisorStart from './supervisor/start.ts';
import SupervisorStatus from './supervisor/status.ts';
import SupervisorStop from './supervisor/stop.ts';
import ConfigExplain from './config/explain.ts';
import ConfigShow from './config/show.ts';
import ConfigValidate from './config/validate.ts';
import ProviderAdd from './provider/add.ts';
import ProviderList from './provider/list.ts';
import ProviderRemove from './provider/remove.ts';
import ProviderSet from './provider/set.ts';
import ProviderShow from './provider/show.ts';
import RigAdd from './rig/add.ts';
import RigList from './rig/list.ts';
import RigRemove from './rig/remove.ts';
import RigRestart from './rig/restart.ts';
import RigResume from './rig/resume.ts';
import RigSet from './rig/set.ts';
import RigShow from './rig/show.ts';
import RigSuspend from './rig/suspend.ts';

// Issue 28 (the remaining agent-facing commands): doctor, order run, beads, wait.
import BeadsHealth from './beads/health.ts';
import Doctor from './doctor.ts';
import OrderRun from './order/run.ts';
import {
  BeadsCityUseExternal,
  BeadsCityUseManaged,
  WaitCancel,
  WaitInspect,
  WaitList,
  WaitReady,
} from './unsupported.ts';

/**
 * Every `gc` command by id (oclif's "explicit" command discovery: no directory scan at start-up). A new
 * command must be added here. Command modules stay light: heavy dependencies are imported inside `run()`.
 */
export const COMMANDS = {
  hook: Hook,
  prime: Prime,
  mail: Mail,
  convoy: Convoy,
  runtime: Runtime,
  nudge: Nudge,
  handoff: Handoff,
  'session:peek': SessionPeek,
  'session:nudge': SessionNudge,
  'agent:add': AgentAdd,
  'agent:list': AgentList,
  'agent:output': AgentOutput,
  'agent:remove': AgentRemove,
  'agent:resume': AgentResume,
  'agent:set': AgentSet,
  'agent:show': AgentShow,
  'agent:suspend': AgentSuspend,
  cities: Cities,
  'city:create': CityCreate,
  'city:stop': CityStop,
  'city:unregister': CityUnregister,
  events: Events,
  'events:rotate': EventsRotate,
  'extmsg:adapters': ExtmsgAdapters,
  'extmsg:bind': ExtmsgBind,
  'extmsg:send': ExtmsgSend,
  'extmsg:transcript': ExtmsgTranscript,
  'formula:cook': FormulaCook,
  'formula:list': FormulaList,
  'formula:preview': FormulaPreview,
  'formula:show': FormulaShow,
  inspect: Inspect,
  'order:check': OrderCheck,
  'order:disable': OrderDisable,
  'order:enable': OrderEnable,
  'order:history': OrderHistory,
  'order:list': OrderList,
  'service:list': ServiceList,
  'service:restart': ServiceRestart,
  'session:attach': SessionAttach,
  'session:close': SessionClose,
  'session:create': SessionCreate,
  'session:kill': SessionKill,
  'session:list': SessionList,
  'session:logs': SessionLogs,
  'session:new': SessionNew,
  'session:pending': SessionPending,
  'session:rename': SessionRename,
  'session:respond': SessionRespond,
  'session:send': SessionSend,
  'session:show': SessionShow,
  'session:stop': SessionStop,
  'session:submit': SessionSubmit,
  'session:suspend': SessionSuspend,
  'session:transcript': SessionTranscript,
  'session:wake': SessionWake,
  init: Init,
  register: Register,
  restart: Restart,
  resume: Resume,
  sling: Sling,
  start: Start,
  status: Status,
  stop: Stop,
  suspend: Suspend,
  unregister: Unregister,
  'supervisor:run': SupervisorRun,
  'supervisor:start': SupervisorStart,
  'supervisor:status': SupervisorStatus,
  'supervisor:stop': SupervisorStop,
  'config:explain': ConfigExplain,
  'config:show': ConfigShow,
  'config:validate': ConfigValidate,
  'provider:add': ProviderAdd,
  'provider:list': ProviderList,
  'provider:remove': ProviderRemove,
  'provider:set': ProviderSet,
  'provider:show': ProviderShow,
  'rig:add': RigAdd,
  'rig:list': RigList,
  'rig:remove': RigRemove,
  'rig:restart': RigRestart,
  'rig:resume': RigResume,
  'rig:set': RigSet,
  'rig:show': RigShow,
  'rig:suspend': RigSuspend,
  // Issue 28: doctor, order run, beads, wait.
  'beads:city:use-external': BeadsCityUseExternal,
  'beads:city:use-managed': BeadsCityUseManaged,
  'beads:health': BeadsHealth,
  doctor: Doctor,
  'order:run': OrderRun,
  'wait:cancel': WaitCancel,
  'wait:inspect': WaitInspect,
  'wait:list': WaitList,
  'wait:ready': WaitReady,
};
