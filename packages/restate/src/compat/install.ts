// Side-effect module, imported first by the package entry: the Restate SDK needs
// `Promise.withResolvers` (Node >= 22) whenever it runs a handler or builds a journaled promise.
// It never calls it while its modules load, so installing it here — before any of this package's
// code can reach the SDK — is enough even though a bundler hoists the SDK import above this one.
import { installPromiseWithResolvers } from "./promise-with-resolvers.js";

installPromiseWithResolvers();
