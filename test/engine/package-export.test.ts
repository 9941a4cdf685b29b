import assert from 'node:assert/strict';

describe('skinmatch/engine package export', () => {
  it('is importable on its own by package name and scores like the service does', async () => {
    const engine = await import('skinmatch/engine');
    const local = await import('../../services/match/engine/index.ts');
    assert.equal(engine.ENGINE_VERSION, local.ENGINE_VERSION);
    const product = engine.compileProduct({
      evidence: { redness: 3, acne: 2 },
      targets: ['redness', 'acne'],
      flags: [],
      skin_types: ['oily'],
      parsed_ingredients: [{ label: 'Azelaic Acid', name: 'azelaic acid', mayContain: false }],
    });
    const concerns = [{ name: 'redness', severity: 0.5 }] as const;
    assert.equal(engine.score(concerns, product), local.score(concerns, product));
    assert.equal(engine.score(concerns, product), 100);
  });
});
