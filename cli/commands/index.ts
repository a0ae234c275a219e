import Cities from './cities.ts';
import CityCreate from './city/create.ts';
import CityUnregister from './city/unregister.ts';
import Events from './events.ts';
import SupervisorRun from './supervisor/run.ts';
import SupervisorStart from './supervisor/start.ts';
import SupervisorStatus from './supervisor/status.ts';
import SupervisorStop from './supervisor/stop.ts';

/**
 * Every `gc` command by id (oclif's "explicit" command discovery: no directory scan at start-up). A new
 * command must be added here. Command modules stay light: heavy dependencies are imported inside `run()`.
 */
export const COMMANDS = {
  cities: Cities,
  'city:create': CityCreate,
  'city:unregister': CityUnregister,
  events: Events,
  'supervisor:run': SupervisorRun,
  'supervisor:start': SupervisorStart,
  'supervisor:status': SupervisorStatus,
  'supervisor:stop': SupervisorStop,
};
