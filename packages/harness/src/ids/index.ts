export { createRandomIds, type IdGenerator } from "./id-generator.js";
