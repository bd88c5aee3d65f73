/**
 * YARP's configuration: the strict YAML config file and the environment
 * variables YARP itself reads.
 *
 * @module
 */
export {
  configLocation,
  type ConfigResult,
  EMPTY_CONFIG,
  loadConfig,
  parseConfig,
  type YarpConfig,
} from "./config.ts";
export { envFromRecord, type EnvReader, processEnv } from "./env.ts";
