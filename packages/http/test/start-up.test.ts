import { describe, expect, it } from 'vitest';
import { createLogger, openedResources, startUp } from '../src/index.js';

const quiet = createLogger({ level: 'silent', name: 'start-up-test' });

describe('start-up', () => {
  it('closes what was opened last first, once', async () => {
    const closed: string[] = [];
    const opened = openedResources();
    opened.push(() => closed.push('database'));
    opened.push(async () => {
      await Promise.resolve();
      closed.push('queue');
    });
    await opened.closeAll();
    await opened.closeAll();
    expect(closed).toEqual(['queue', 'database']);
  });

  it('when start-up fails half-way, closes what it had opened and throws its own error', async () => {
    const closed: string[] = [];
    const failing = startUp(quiet, async (opened) => {
      opened.push(() => closed.push('identity provider'));
      opened.push(() => {
        closed.push('database');
        throw new Error('closing failed too');
      });
      await Promise.resolve();
      throw new Error('port in use');
    });
    await expect(failing).rejects.toThrow('port in use');
    // The database's close threw: what was opened before it stays open (as before the shared helper).
    expect(closed).toEqual(['database']);
  });

  it('answers what start-up answers, and leaves what it opened open', async () => {
    const closed: string[] = [];
    const started = await startUp(quiet, (opened) => {
      opened.push(() => closed.push('database'));
      return Promise.resolve('running');
    });
    expect(started).toBe('running');
    expect(closed).toEqual([]);
  });
});
