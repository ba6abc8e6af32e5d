export { type Clock, startInterval, startTimer, systemClock } from "./clock.js";
export { type HostTimers, type Timer, TimerQueue } from "./timer-queue.js";
