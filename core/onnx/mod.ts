/**
 * The ONNX protobuf codec: the wire format, and the message fields petri-serve writes and reads.
 *
 * @module
 */

export {
  countNodes,
  decodeModel,
  encodeModel,
  floatTensor,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from "./proto.ts";
