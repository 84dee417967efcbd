// Link framing alone (no simulation): messages, slots, flits and wire efficiency of transfers,
// against values worked out by hand from flit formats; and the link keys' configuration errors.
#include "models/fabric/link_framing.h"
#include "tests/support/link_expectations.h"
#include "tests/support/test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace famsim {
namespace {

using ::testing::HasSubstr;

// CXL 68 B flit mode (REFERENCE.md): 2 B protocol id, 4 x 16 B slots, 2 B CRC, 64 B per message.
FlitFormat cxl68() {
  FlitFormat f;
  f.flit_bytes = 68;
  f.flit_header_bytes = 2;
  f.flit_crc_bytes = 2;
  f.slot_bytes = 16;
  f.max_payload_bytes = 64;
  return f;
}

TEST(LinkFraming, Cxl68ReadOfACacheLine) {
  const LinkFraming f(cxl68());
  EXPECT_EQ(f.message_area_bytes(), 64u);
  EXPECT_EQ(f.slots_per_flit(), 4u);
  EXPECT_DOUBLE_EQ(f.wire_bytes_per_slot(), 17.0);
  // MemRd: one header slot. Data response: one header slot + 64 / 16 = 4 data slots.
  const TransferShape req = f.request(false, 64);
  const TransferShape resp = f.response(false, 64);
  EXPECT_EQ(req.messages, 1u);
  EXPECT_EQ(req.slots, 1u);
  EXPECT_EQ(req.payload_bytes, 0u);
  EXPECT_EQ(resp.slots, 5u);
  EXPECT_EQ(resp.payload_bytes, 64u);
  EXPECT_DOUBLE_EQ(f.efficiency(false, 64), 64.0 / (6 * 17));
}

TEST(LinkFraming, TransferLargerThanMaxPayloadBecomesSeveralMessages) {
  const LinkFraming f(cxl68());
  // 128 B read = 2 MemRd (1 slot each) + 2 data responses (5 slots each).
  EXPECT_EQ(f.request(false, 128).messages, 2u);
  EXPECT_EQ(f.request(false, 128).slots, 2u);
  EXPECT_EQ(f.response(false, 128).messages, 2u);
  EXPECT_EQ(f.response(false, 128).slots, 10u);
  // 256 B write = 4 MemWr of 5 slots + 4 Cmp of 1 slot.
  EXPECT_EQ(f.request(true, 256).slots, 20u);
  EXPECT_EQ(f.response(true, 256).slots, 4u);
  EXPECT_EQ(f.response(true, 256).payload_bytes, 0u);
  // A remainder message carries the rest: 96 B = 64 + 32 -> (1 + 4) + (1 + 2) slots.
  EXPECT_EQ(f.response(false, 96).slots, 8u);
}

TEST(LinkFraming, AnAtomicRequestCarriesItsOperands) {
  const LinkFraming f(cxl68());
  // Fetch-add of 8 B: header slot + one 16 B slot for the 8 B operand; compare-and-swap of 8 B:
  // 16 B of operands, still one slot. Its response is an 8 B read's: header + one slot.
  EXPECT_EQ(f.atomic_request(8).messages, 1u);
  EXPECT_EQ(f.atomic_request(8).slots, 2u);
  EXPECT_EQ(f.atomic_request(8).payload_bytes, 8u);
  EXPECT_EQ(f.atomic_request(16).slots, 2u);
  EXPECT_EQ(f.response(false, 8).slots, 2u);
}

TEST(LinkFraming, PerMessagePackingStartsEveryMessageOnANewFlit) {
  FlitFormat fmt = cxl68();
  fmt.packing = Packing::kPerMessage;
  const LinkFraming f(fmt);
  // MemRd: 1 slot -> 1 flit (3 slots of padding); data response 5 slots -> 2 flits.
  EXPECT_EQ(f.request(false, 64).flits, 1u);
  EXPECT_EQ(f.response(false, 64).flits, 2u);
  EXPECT_EQ(f.wire_slots(f.response(false, 64)), 8u);
  EXPECT_DOUBLE_EQ(f.efficiency(false, 64), 64.0 / (3 * 68));
  // 128 B: two of each.
  EXPECT_DOUBLE_EQ(f.efficiency(false, 128), 128.0 / (6 * 68));
}

TEST(LinkFraming, CreditsInFlitsOrMessages) {
  const LinkFraming f(cxl68());
  const TransferShape resp = f.response(false, 128);  // 10 slots
  EXPECT_EQ(f.credits(resp, CreditUnit::kMessage), 2u);
  EXPECT_EQ(f.credits(resp, CreditUnit::kFlit), 3u);  // ceil(10 / 4)
  // Largest message: 1 header slot + 64 / 16 data slots = 5 slots -> 2 flit entries.
  EXPECT_EQ(f.largest_message_credits(CreditUnit::kFlit), 2u);
  EXPECT_EQ(f.largest_message_credits(CreditUnit::kMessage), 1u);
}

TEST(LinkFraming, EveryPresetMatchesTheHandWorkedEfficiency) {
  for (const test::PresetFormat& p : test::kPresetFormats) {
    const LinkFraming f(test::preset_link_params(p.name).flit);
    EXPECT_DOUBLE_EQ(f.wire_bytes_per_slot(), p.wire_bytes_per_slot) << p.name;
    for (unsigned bytes : {64u, 128u, 256u}) {
      const double hand = test::hand_efficiency(p, bytes);
      EXPECT_NEAR(f.efficiency(false, bytes), hand, 1e-12) << p.name << " read " << bytes;
      EXPECT_NEAR(f.efficiency(true, bytes), hand, 1e-12) << p.name << " write " << bytes;
    }
  }
  // The table's formula against the numbers written out in link_expectations.h.
  EXPECT_NEAR(test::hand_efficiency(test::kPresetFormats[0], 256), 256.0 / 288, 1e-12);
  EXPECT_NEAR(test::hand_efficiency(test::kPresetFormats[2], 128), 0.78, 1e-12);
  EXPECT_NEAR(test::hand_efficiency(test::kPresetFormats[3], 128), 64.0 / 102, 1e-12);
  EXPECT_NEAR(test::hand_efficiency(test::kPresetFormats[4], 64), 0.625, 1e-12);
}

TEST(LinkFraming, InconsistentFormatsNameTheKey) {
  FlitFormat f = cxl68();
  f.flit_crc_bytes = 66;  // 2 + 66 + 0 >= 68
  ASSERT_TRUE(LinkFraming::check(f));
  EXPECT_EQ(LinkFraming::check(f)->key, "flit_bytes");
  f = cxl68();
  f.slot_bytes = 24;  // 64 B area
  EXPECT_EQ(LinkFraming::check(f)->key, "slot_bytes");
  f = cxl68();
  f.max_payload_bytes = 72;
  EXPECT_EQ(LinkFraming::check(f)->key, "max_payload_bytes");
  EXPECT_FALSE(LinkFraming::check(cxl68()));
  EXPECT_THROW(LinkFraming{f}, std::invalid_argument);
}

// --- Configuration errors: each names the key and what was expected -----------------------------

std::string link_error_of(const std::string& preset, const std::string& extra) {
  try {
    test::preset_link_params(preset, extra);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError for" << extra;
  return "";
}

TEST(LinkConfig, OverheadsLeavingNoMessageAreaNameFlitBytes) {
  const std::string m = link_error_of("cxl_gen5_x16", ", flit_bytes: 4");
  EXPECT_THAT(m, HasSubstr("links.gpu_device.flit_bytes"));
  EXPECT_THAT(m, HasSubstr("no message area"));
}

TEST(LinkConfig, SlotNotDividingTheMessageAreaNamesSlotBytes) {
  const std::string m = link_error_of("cxl_gen6_x16", ", slot_bytes: 64");
  EXPECT_THAT(m, HasSubstr("links.gpu_device.slot_bytes"));
  EXPECT_THAT(m, HasSubstr("240"));
}

TEST(LinkConfig, MaxPayloadNotWholeSlotsNamesMaxPayloadBytes) {
  const std::string m = link_error_of("nvlink4", ", max_payload_bytes: 100");
  EXPECT_THAT(m, HasSubstr("links.gpu_device.max_payload_bytes"));
  EXPECT_THAT(m, HasSubstr("multiple of slot_bytes"));
}

TEST(LinkConfig, TooFewCreditsForTheLargestMessageNameTheVc) {
  // nvlink4: a 256 B message is 1 + 16 = 17 flits.
  std::string m = link_error_of("nvlink4", ", request_vc_credits: 16");
  EXPECT_THAT(m, HasSubstr("links.gpu_device.request_vc_credits"));
  EXPECT_THAT(m, HasSubstr("at least 17"));
  m = link_error_of("nvlink4", ", response_vc_credits: 8");
  EXPECT_THAT(m, HasSubstr("links.gpu_device.response_vc_credits"));
}

TEST(LinkConfig, BadChoicesAndRangesNameTheKey) {
  EXPECT_THAT(link_error_of("nvlink4", ", packing: tight"), HasSubstr("links.gpu_device.packing"));
  EXPECT_THAT(link_error_of("nvlink4", ", credit_unit: byte"),
              HasSubstr("links.gpu_device.credit_unit"));
  EXPECT_THAT(link_error_of("nvlink4", ", flit_error_rate: 0.9"),
              HasSubstr("links.gpu_device.flit_error_rate"));
  EXPECT_THAT(link_error_of("nvlink4", ", replay_buffer_flits: 0"),
              HasSubstr("links.gpu_device.replay_buffer_flits"));
  EXPECT_THAT(link_error_of("nvlink4", ", request_header_bytes: 0"),
              HasSubstr("links.gpu_device.request_header_bytes"));
  EXPECT_THAT(link_error_of("nvlink4", ", clock_mhz: 0"), HasSubstr("links.gpu_device.clock_mhz"));
}

TEST(LinkConfig, TheFirstCutKeysAreGone) {
  EXPECT_THAT(link_error_of("nvlink4", ", header_bytes: 16"), HasSubstr("header_bytes"));
  EXPECT_THAT(link_error_of("nvlink4", ", buffer_entries: 8"), HasSubstr("buffer_entries"));
}

TEST(LinkConfig, PresetsGiveTheirPublishedRates) {
  // REFERENCE.md: NVLink4 25 GB/s, NVLink5 50 GB/s per direction per link; UALink x4 of 200G
  // lanes = 100 GB/s; CXL Gen5 x16 = 16 x 32 x 128/130 / 8 = 63.0 GB/s; Gen6 x16 = 128 GB/s raw.
  EXPECT_NEAR(test::preset_link_params("nvlink4").bandwidth_gbps(), 25.0, 1e-9);
  EXPECT_NEAR(test::preset_link_params("nvlink5").bandwidth_gbps(), 50.0, 1e-9);
  EXPECT_NEAR(test::preset_link_params("ualink1").bandwidth_gbps(), 100.0, 1e-9);
  EXPECT_NEAR(test::preset_link_params("cxl_gen5_x16").bandwidth_gbps(), 16 * 32 * 128.0 / 130 / 8,
              1e-9);
  EXPECT_NEAR(test::preset_link_params("cxl_gen6_x16").bandwidth_gbps(), 128.0, 1e-9);
}

}  // namespace
}  // namespace famsim
