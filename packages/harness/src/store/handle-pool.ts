/** Something whose open descriptor can be released and transparently reopened later. */
export interface ReopenableFile {
  /** Close the descriptor; the next use reopens it. */
  close(): Promise<void>;
}

interface Slot {
  file: ReopenableFile;
  /** Operations currently using the file (0: idle, may be evicted). */
  active: number;
}

/**
 * Bounds the open descriptors of many per-stream files: at most `max` are open at once. Files in
 * use hold a slot; idle files keep theirs (least recently used first out) until another stream
 * needs one, so a busy stream appends without reopening while thousands of streams (one per root
 * run) never hold thousands of descriptors. With `retainIdle: false` a file is closed as soon as
 * its operation ends (open-append-close). When every slot is busy, `acquire` waits.
 * @internal used by `JsonlAppendLog`.
 */
export class HandlePool {
  private readonly max: number;
  private readonly retainIdle: boolean;
  /** Open (or opening) files by key, least recently used first. */
  private readonly slots = new Map<string, Slot>();
  /** Descriptors being closed: they still count against `max`. */
  private closing = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(max: number, retainIdle: boolean) {
    this.max = max;
    this.retainIdle = retainIdle;
  }

  /** Descriptors open or being closed right now (for tests). */
  get openCount(): number {
    return this.slots.size + this.closing;
  }

  /** Take a slot for `key` (waiting while every slot is busy). Pair with {@link release}. */
  async acquire(key: string, file: ReopenableFile): Promise<void> {
    for (;;) {
      const slot = this.slots.get(key);
      if (slot !== undefined && slot.file === file) {
        slot.active++;
        this.slots.delete(key);
        this.slots.set(key, slot);
        return;
      }
      if (this.slots.size + this.closing < this.max) {
        this.slots.set(key, { file, active: 1 });
        return;
      }
      const victim = this.idleVictim();
      if (victim !== undefined) {
        await this.evict(victim[0], victim[1]);
        continue;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Give back `key`'s slot; closes the file now unless idle files are retained. */
  async release(key: string): Promise<void> {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    slot.active--;
    if (slot.active > 0) return;
    if (!this.retainIdle) await this.evict(key, slot);
    else this.wake();
  }

  /** Forget `key` (its file is being closed by its owner). */
  forget(key: string): void {
    if (this.slots.delete(key)) this.wake();
  }

  private idleVictim(): [string, Slot] | undefined {
    for (const entry of this.slots) if (entry[1].active === 0) return entry;
    return undefined;
  }

  private async evict(key: string, slot: Slot): Promise<void> {
    if (this.slots.get(key) === slot) this.slots.delete(key);
    this.closing++;
    try {
      await slot.file.close();
    } catch {
      // A failed close still releases the descriptor (or there was none); the next use reopens.
    } finally {
      this.closing--;
      this.wake();
    }
  }

  private wake(): void {
    this.waiters.shift()?.();
  }
}
