/**
 * The undo journal of an in-memory transaction: every write through a transaction's store view
 * records how to undo itself; `rollback` undoes them newest first. `onEnd` callbacks (lock
 * releases) run after commit or rollback.
 */
export class UndoJournal {
  readonly #undo: (() => void)[] = [];
  readonly #end: (() => void)[] = [];
  #done = false;

  record(undo: () => void): void {
    if (this.#done) throw new Error('the transaction has ended');
    this.#undo.push(undo);
  }
  onEnd(callback: () => void): void {
    this.#end.push(callback);
  }
  commit(): void {
    this.#finish();
  }
  rollback(): void {
    for (const undo of this.#undo.reverse()) undo();
    this.#finish();
  }
  #finish(): void {
    this.#done = true;
    this.#undo.length = 0;
    for (const callback of this.#end.splice(0)) callback();
  }
}
