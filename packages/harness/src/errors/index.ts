export { cancelled, type LimitName, limitExceeded, runTimeout } from "./factories.js";
