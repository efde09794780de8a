#version 330 core
// One triangle that covers the whole viewport; the fragment shader does all the work, so no vertex
// buffer is needed (an empty vertex array object is bound).
void main() {
  vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));  // (0,0) (2,0) (0,2)
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
