#include "output/csv_output.h"
#include "output/json_output.h"
#include "output/text_output.h"

namespace memcg_statctl {

std::unique_ptr<Output> make_output(OutputFormat format, std::ostream& out) {
    switch (format) {
    case OutputFormat::json:
        return std::make_unique<JsonOutput>(out);
    case OutputFormat::csv:
        return std::make_unique<CsvOutput>(out);
    case OutputFormat::text:
        break;
    }
    return std::make_unique<TextOutput>(out);
}

} // namespace memcg_statctl
