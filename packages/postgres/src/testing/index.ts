export {
  findPostgresBinaries,
  INSTALL_HINT,
  type PostgresBinaries,
  PostgresNotInstalledError,
} from "./postgres-binaries.js";
export { skipPostgres } from "./skip-postgres.js";
export {
  type StartTestPostgresOptions,
  startTestPostgres,
  type TestPostgres,
} from "./start-test-postgres.js";
