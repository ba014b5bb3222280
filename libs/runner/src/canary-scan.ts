// failure_surfaced reads whether the agent's stdout contains the repetition's canary. The stdout
// arrives in chunks, so a canary split across two chunks must still be found: keep the tail of the
// previous chunk that could be the start of one.

export class CanaryScanner {
  private readonly canary: string;
  private carry = '';
  found = false;

  constructor(canary: string) {
    this.canary = canary;
  }

  push(chunk: Buffer | string): void {
    if (this.found) return;
    const text = this.carry + (typeof chunk === 'string' ? chunk : chunk.toString('latin1'));
    if (text.includes(this.canary)) {
      this.found = true;
      this.carry = '';
      return;
    }
    this.carry = text.slice(-(this.canary.length - 1));
  }
}
