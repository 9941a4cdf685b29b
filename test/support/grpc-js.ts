/**
 * A plain @grpc/grpc-js client as an internal system would build one: the project's protos loaded at run time
 * with @grpc/proto-loader (no generated code), and a unary call as a promise.
 */
import { resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const PROTO_DIRS = [resolve('proto'), resolve('third_party/proto')];

/** The package tree of a proto file under proto/ or third_party/proto/ (e.g. `skinmatch/v1/scan.proto`). */
export function loadProto(file: string): any {
  const definition = protoLoader.loadSync(file, {
    includeDirs: PROTO_DIRS,
    keepCase: false,
    longs: String,
    enums: String,
    defaults: true,
  });
  return grpc.loadPackageDefinition(definition);
}

/** One unary call of a grpc-js client, resolved with its answer or rejected with its error. */
export const unary = <T>(client: any, method: string, req: object) =>
  new Promise<T>((done, fail) =>
    client[method](req, (err: Error | null, res: T) => (err ? fail(err) : done(res))),
  );
