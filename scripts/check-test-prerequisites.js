#!/usr/bin/env node
// The first step of `npm test`: checks what the suites need from the machine before minutes of
// building and linting, and says what to install. PostgreSQL is not checked: the suites' global
// set-up falls back to an embedded one (test/setup/global-setup.ts).
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { chromiumProblem } = require('./chromium');
const { answers, redisServerOnPath, MissingRedisError } = require('./local-services');

async function main() {
  const problems = [];
  const chromium = chromiumProblem();
  if (chromium) problems.push(chromium);
  // ffprobe reads rendered and recorded videos, ffmpeg decodes their frames (test/support/video-probe.ts).
  const missingFfmpeg = ['ffprobe', 'ffmpeg'].filter((tool) => spawnSync(tool, ['-version'], { stdio: 'ignore' }).status !== 0);
  if (missingFfmpeg.length) {
    problems.push(
      [
        `No ${missingFfmpeg.join(' or ')} on the PATH: the browser suites check rendered and recorded videos with FFmpeg.`,
        'Install it (Debian/Ubuntu: sudo apt-get install ffmpeg; macOS: brew install ffmpeg).',
      ].join('\n'),
    );
  }
  // Blender imports the glTF camera exports, as a person would (test/support/camera-readers.ts);
  // its glTF importer needs numpy.
  const blender = spawnSync('blender', ['--background', '--factory-startup', '--python-exit-code', '1', '--python-expr', 'import numpy'], {
    stdio: 'ignore',
    timeout: 60_000,
  });
  if (blender.status !== 0) {
    problems.push(
      [
        blender.error?.code === 'ENOENT'
          ? "No blender on the PATH: the browser suites check the glTF camera exports with Blender's importer."
          : 'Blender did not start, or runs without numpy, which its glTF importer needs.',
        'Install it (Debian/Ubuntu: sudo apt-get install blender python3-numpy; macOS: brew install --cask blender).',
      ].join('\n'),
    );
  }
  // promtool checks and unit-tests the alerting rules; a real Prometheus scrapes running processes
  // and answers every dashboard query (test/deploy/monitoring*.e2e-spec.ts).
  const missingPrometheus = ['prometheus', 'promtool'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
  if (missingPrometheus.length) {
    problems.push(
      [
        `No ${missingPrometheus.join(' or ')} on the PATH: the monitoring suites run the rules' unit tests with promtool and query a real Prometheus.`,
        'Install it (Debian/Ubuntu: sudo apt-get install prometheus, which brings promtool; macOS: brew install prometheus).',
      ].join('\n'),
    );
  }
  // The Python client's suite runs the system's python3 (/usr/bin/python3 where there is one),
  // 3.11 or later (test/client/python-client.e2e-spec.ts).
  const python = spawnSync(
    existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
    ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'],
    { stdio: 'ignore' },
  );
  if (python.status !== 0) {
    problems.push(
      [
        python.error?.code === 'ENOENT'
          ? 'No python3 on the PATH: the Python client is tested against the running stack.'
          : 'python3 is older than 3.11, the oldest the Python client supports.',
        'Install it (Debian 12/Ubuntu 24.04: sudo apt-get install python3; macOS: brew install python@3.11).',
      ].join('\n'),
    );
  }
  const redisProbe = Number(process.env.LOCAL_REDIS_PROBE_PORT || 6379);
  if (!process.env.REDIS_URL && !(await answers(redisProbe)) && !redisServerOnPath(process.env))
    problems.push(new MissingRedisError().message);
  if (problems.length) {
    process.stderr.write(`\nnpm test cannot run on this machine yet:\n\n${problems.join('\n\n')}\n\n`);
    process.exit(1);
  }
}

void main();
