/**
 * A test world's teardown: every step runs, in order, even after one throws (a browser that would not close must not
 * keep the world's folder in the temp folder), then the first error is thrown.
 */
export async function tearDown(steps: (() => unknown)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length) throw errors[0];
}
