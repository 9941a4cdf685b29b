/**
 * gRPC server reflection (grpc.reflection.v1) for connect-node, so that grpcurl, Postman and similar tools
 * can list and call core's services without the .proto files. It answers from the generated descriptors.
 */
import { create, type DescFile, type DescService, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  type ServerReflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from '../../gen/grpc/reflection/v1/reflection_pb.ts';

type Answer = MessageInitShape<typeof ServerReflectionResponseSchema>['messageResponse'];

const GRPC_NOT_FOUND = 5;
const GRPC_UNIMPLEMENTED = 12;

export class ReflectionService implements ServiceImpl<typeof ServerReflection> {
  readonly #services: readonly DescService[];
  readonly #files = new Map<string, DescFile>();
  readonly #fileOfSymbol = new Map<string, DescFile>();

  constructor(services: readonly DescService[]) {
    this.#services = services;
    for (const service of services) this.#index(service.file);
  }

  async *serverReflectionInfo(
    requests: AsyncIterable<ServerReflectionRequest>,
  ): AsyncGenerator<ServerReflectionResponse> {
    for await (const request of requests) yield this.#answer(request);
  }

  #answer(request: ServerReflectionRequest): ServerReflectionResponse {
    const { messageRequest: ask } = request;
    const reply = (messageResponse: Answer) =>
      create(ServerReflectionResponseSchema, {
        validHost: request.host,
        originalRequest: request,
        messageResponse,
      });
    const notFound = (what: string) =>
      reply({
        case: 'errorResponse',
        value: { errorCode: GRPC_NOT_FOUND, errorMessage: `${what} not found` },
      });
    switch (ask.case) {
      case 'listServices':
        return reply({
          case: 'listServicesResponse',
          value: { service: this.#services.map((s) => ({ name: s.typeName })) },
        });
      case 'fileByFilename': {
        const file = this.#files.get(ask.value);
        return file ? reply(this.#descriptors(file)) : notFound(`file ${ask.value}`);
      }
      case 'fileContainingSymbol': {
        const file = this.#fileOfSymbol.get(ask.value) ?? this.#fileOfSymbol.get(parentOf(ask.value));
        return file ? reply(this.#descriptors(file)) : notFound(`symbol ${ask.value}`);
      }
      default:
        return reply({
          case: 'errorResponse',
          value: { errorCode: GRPC_UNIMPLEMENTED, errorMessage: 'extensions are not used by this server' },
        });
    }
  }

  /** The file and everything it imports, the file first, as the protocol asks. */
  #descriptors(file: DescFile): Answer {
    const ordered: DescFile[] = [];
    const visit = (f: DescFile) => {
      if (ordered.includes(f)) return;
      ordered.push(f);
      for (const dep of f.dependencies) visit(dep);
    };
    visit(file);
    const fileDescriptorProto = ordered.map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
    return { case: 'fileDescriptorResponse', value: { fileDescriptorProto } };
  }

  #index(file: DescFile): void {
    if (this.#files.has(file.proto.name)) return;
    this.#files.set(file.proto.name, file);
    const symbols = [...file.services, ...file.enums, ...file.messages];
    for (const message of file.messages) symbols.push(...message.nestedMessages, ...message.nestedEnums);
    for (const symbol of symbols) this.#fileOfSymbol.set(symbol.typeName, file);
    for (const dep of file.dependencies) this.#index(dep);
  }
}

/** `pkg.Service.Method` → `pkg.Service`, so that a method names its file too. */
function parentOf(symbol: string): string {
  return symbol.slice(0, Math.max(0, symbol.lastIndexOf('.')));
}
