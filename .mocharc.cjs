// Mocha runs the TypeScript tests directly on Node 24; in CI a stray `.only` fails the run.
module.exports = {
  spec: ['test/**/*.test.ts'],
  extension: ['ts'],
  require: ['test/hooks.ts'],
  timeout: 30000,
  recursive: true,
  forbidOnly: Boolean(process.env.CI),
};
