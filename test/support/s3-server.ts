import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local S3-protocol server for the tests: s3rver, a stand-in that speaks enough of the S3 REST
 * API (path-style, SigV4) for the SDK's put, get and delete. It is not S3, MinIO or R2; the
 * adapter's settings for those are in docs/operations.md.
 */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** The settings that point the services at it. */
  config: {
    BLOB_STORE: 's3';
    S3_ENDPOINT: string;
    S3_BUCKET: string;
    S3_REGION: string;
    S3_FORCE_PATH_STYLE: 'true';
    S3_ACCESS_KEY_ID: string;
    S3_SECRET_ACCESS_KEY: string;
  };
  close(): Promise<void>;
}

// s3rver's fixed credentials.
const ACCESS_KEY = 'S3RVER';

export async function startLocalS3(directory: string, bucket = 'scene-studio-test'): Promise<LocalS3> {
  const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<AddressInfo>; httpServer: Server };
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    config: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets of the SDK would hold close() open.
        server.httpServer.closeAllConnections();
        server.httpServer.close(() => resolve());
      }),
  };
}
